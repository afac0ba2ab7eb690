import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// iPhone `.AAE` slow-motion sidecars: finding them next to a clip, reading their rate and
/// regions exactly whatever the payload's compression, and rejecting broken ones with the
/// sidecar's path and the precise cause — never a crash.
@Suite struct SlowMotionSidecarTests {
    /// The issue's example: a quarter-speed section from 2.805 s lasting 13.09 s, in
    /// nanoseconds.
    static let example: [(start: Int64, duration: Int64, timescale: Int32)] =
        [(start: 2_805_000_000, duration: 13_090_000_000, timescale: 1_000_000_000)]

    // MARK: Reading

    @Test(arguments: SlowMotionSidecarFixture.Compression.allCases)
    func roundTripsTheIssuesExample(compression: SlowMotionSidecarFixture.Compression) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("IMG_0283.AAE")
        try SlowMotionSidecarFixture.write(to: path, rate: 0.25, regions: Self.example, compression: compression)
        let sidecar = try SlowMotionSidecar(contentsOf: path)
        #expect(sidecar.path == path)
        #expect(sidecar.rate == 0.25)
        #expect(sidecar.regions == [TimeRange(start: MediaTime(value: 2_805_000_000, timescale: 1_000_000_000),
                                              duration: MediaTime(value: 13_090_000_000, timescale: 1_000_000_000))])
        // Exact: the sidecar's own numbers, not seconds through a Double.
        #expect(sidecar.regions.first?.start.value == 2_805_000_000)
        #expect(sidecar.regions.first?.start.timescale == 1_000_000_000)
        #expect(sidecar.regions.first?.duration.value == 13_090_000_000)
        #expect(sidecar.regions.first?.start.hasBeenRounded == false)
        #expect(sidecar.regions.first?.end == MediaTime(value: 15_895, timescale: 1000))
    }

    @Test(arguments: SlowMotionSidecarFixture.Compression.allCases)
    func readsTwoRegionsInOrder(compression: SlowMotionSidecarFixture.Compression) throws {
        let data = try SlowMotionSidecarFixture.data(rate: 0.125, regions: [
            (start: 600, duration: 300, timescale: 600),
            (start: 3000, duration: 1, timescale: 600),
        ], compression: compression)
        let sidecar = try SlowMotionSidecar(data: data, path: "two.AAE")
        #expect(sidecar.rate == 0.125)
        #expect(sidecar.regions == [
            TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 2)),
            TimeRange(start: MediaTime(value: 5, timescale: 1), duration: MediaTime(value: 1, timescale: 600)),
        ])
    }

    @Test func acceptsAnIntegerRate() throws {
        let payload = SlowMotionSidecarFixture.payload(rate: 1, regions: Self.example)
        let sidecar = try SlowMotionSidecar(data: SlowMotionSidecarFixture.data(payload: payload, compression: .zlib), path: "one.AAE")
        #expect(sidecar.rate == 1)
    }

    @Test func reducesATimescaleTooLargeForMediaTime() throws {
        // 2.805 s over a 10 GHz timescale: exact as 561/200.
        var payload = SlowMotionSidecarFixture.payload(rate: 0.25, regions: Self.example)
        payload = Self.replacingStart(in: payload, with: ["value": Int64(28_050_000_000), "timescale": Int64(10_000_000_000), "flags": 1, "epoch": 0])
        let sidecar = try SlowMotionSidecar(data: SlowMotionSidecarFixture.data(payload: payload, compression: .none), path: "big.AAE")
        #expect(sidecar.regions.first?.start == MediaTime(value: 561, timescale: 200))
        #expect(sidecar.regions.first?.start.hasBeenRounded == false)
    }

    // MARK: Finding

    @Test(arguments: [("clip.MOV", "clip.AAE"), ("clip.mov", "clip.AAE"), ("clip.mov", "clip.aae"),
                      ("clip.MOV", "clip.Aae"), ("clip.mov", "CLIP.aae"), ("CLIP.MOV", "clip.AAE")])
    func findsTheSidecarInAnyLetterCase(clip: String, sidecar: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = try Fixtures.makeFile(in: dir.path, name: clip)
        let expected = try Fixtures.makeFile(in: dir.path, name: sidecar)
        #expect(SlowMotionSidecar.path(besides: input) == expected)
    }

    @Test func prefersTheSidecarWhoseStemMatchesExactly() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = try Fixtures.makeFile(in: dir.path, name: "clip.mov")
        _ = try Fixtures.makeFile(in: dir.path, name: "CLIP.AAE")
        let exact = try Fixtures.makeFile(in: dir.path, name: "clip.AAE")
        #expect(SlowMotionSidecar.path(besides: input) == exact)
    }

    @Test func findsNothingWithoutASidecarOfTheSameStem() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = try Fixtures.makeFile(in: dir.path, name: "clip.MOV")
        #expect(SlowMotionSidecar.path(besides: input) == nil)
        for name in ["clip2.AAE", "clip.AAE.bak", "xclip.aae", "clip.MOV.AAE", "clip.aaee"] {
            _ = try Fixtures.makeFile(in: dir.path, name: name)
        }
        try FileManager.default.createDirectory(atPath: dir.file("clip.aae"), withIntermediateDirectories: false)
        #expect(SlowMotionSidecar.path(besides: input) == nil)
        #expect(SlowMotionSidecar.path(besides: dir.file("missing-folder/clip.mov")) == nil)
    }

    @Test func keepsARelativeInputRelative() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        _ = try Fixtures.makeFile(in: dir.path, name: "IMG_1.AAE")
        let parent = (dir.path as NSString).deletingLastPathComponent
        let relative = ((dir.path as NSString).lastPathComponent as NSString).appendingPathComponent("IMG_1.MOV")
        let found = SlowMotionSidecar.path(besides: (parent as NSString).appendingPathComponent(relative))
        #expect(found == dir.file("IMG_1.AAE"))
    }

    // MARK: Rejecting

    @Test func unreadableFilesSayWhy() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let missing = dir.file("gone.AAE")
        #expect(Self.message(reading: missing) == "\(missing): cannot read the slow-motion sidecar: No such file or directory")
        let folder = dir.file("folder.AAE")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(Self.message(reading: folder) == "\(folder): cannot read the slow-motion sidecar: Is a directory")
    }

    @Test(arguments: ["", "hello, world", "<plist version=\"1.0\"><dict><key>a</key>", "\u{0}\u{1}garbage"])
    func textThatIsNotAPropertyList(text: String) throws {
        let (path, message) = try Self.rejection(Data(text.utf8))
        #expect(message.hasPrefix("\(path): not a property list (an .AAE sidecar is an XML plist)"), "\(message)")
    }

    @Test func aPropertyListThatIsNotADictionary() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0)
        let (path, message) = try Self.rejection(data)
        #expect(message == "\(path): not a property list (an .AAE sidecar is an XML plist): it holds a list of 2, not a dictionary")
    }

    @Test func noAdjustmentData() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: ["adjustmentFormatIdentifier": "com.apple.video.slomo"],
                                                      format: .xml, options: 0)
        let (path, message) = try Self.rejection(data)
        #expect(message == "\(path): no adjustmentData entry: not an edit sidecar")
        let text = try PropertyListSerialization.data(fromPropertyList: ["adjustmentData": "YnBsaXN0"], format: .xml, options: 0)
        let (textPath, textMessage) = try Self.rejection(text)
        #expect(textMessage == "\(textPath): adjustmentData must be <data>, got the text 'YnBsaXN0'")
    }

    @Test func garbagePayloads() throws {
        // Valid base64 of "not a plist": neither bplist nor deflate.
        let (path, message) = try Self.rejection(Data("""
            <?xml version="1.0"?><plist version="1.0"><dict><key>adjustmentData</key><data>bm90IGEgcGxpc3Q=</data></dict></plist>
            """.utf8))
        #expect(message.hasPrefix("\(path): adjustmentData is neither a binary property list nor zlib/deflate-compressed data that inflates: corrupt compressed data ("), "\(message)")
        // Malformed base64 decodes to nothing.
        let (emptyPath, emptyMessage) = try Self.rejection(Data("""
            <?xml version="1.0"?><plist version="1.0"><dict><key>adjustmentData</key><data>!!!@@@</data></dict></plist>
            """.utf8))
        #expect(emptyMessage == "\(emptyPath): adjustmentData is neither a binary property list nor zlib/deflate-compressed data that inflates: it is empty (or its base64 is malformed)")
    }

    @Test(arguments: [SlowMotionSidecarFixture.Compression.zlib, .rawDeflate])
    func truncatedCompressedPayload(compression: SlowMotionSidecarFixture.Compression) throws {
        let binary = try PropertyListSerialization.data(
            fromPropertyList: SlowMotionSidecarFixture.payload(rate: 0.25, regions: Self.example), format: .binary, options: 0)
        let compressed = try SlowMotionSidecarFixture.compress(binary, compression)
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: compressed.prefix(compressed.count / 2)))
        #expect(message == "\(path): adjustmentData is neither a binary property list nor zlib/deflate-compressed data that inflates: the compressed data ends early (truncated)")
    }

    @Test func compressedPayloadThatIsNotABinaryPropertyList() throws {
        let compressed = try SlowMotionSidecarFixture.compress(Data("<plist/>".utf8), .zlib)
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: compressed))
        #expect(message == "\(path): adjustmentData is not a binary property list dictionary: it inflates to 8 bytes that do not start with bplist")
        let list = try PropertyListSerialization.data(fromPropertyList: [1, 2, 3], format: .binary, options: 0)
        let (listPath, listMessage) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: list))
        #expect(listMessage == "\(listPath): adjustmentData is not a binary property list dictionary: it holds a list of 3, not a dictionary")
        let (brokenPath, brokenMessage) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: list.prefix(20)))
        #expect(brokenMessage == "\(brokenPath): adjustmentData is not a binary property list dictionary: it is truncated (20 bytes)")
        let (cutPath, cutMessage) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: list.dropLast(1)))
        #expect(cutMessage == "\(cutPath): adjustmentData is not a binary property list dictionary: its trailer is corrupt")
    }

    /// Structures that crash or hang Foundation's own readers on Linux (a set makes
    /// swift-corelibs-foundation's bridging dereference null; a cycle hangs
    /// PropertyListDecoder) are refused before Foundation sees them.
    @Test func binaryPayloadsFoundationCannotSurvive() throws {
        let cases: [(bytes: Data, problem: String)] = [
            // { "a": set("b") }
            (Self.binaryPlist([[0xD1, 1, 2], [0x51, 0x61], [0xC1, 3], [0x51, 0x62]]), "object 2 has an unsupported type (marker 0xC1)"),
            // [UID 5]
            (Self.binaryPlist([[0xA1, 1], [0x80, 5]]), "object 1 has an unsupported type (marker 0x80)"),
            // [[…]]: an array that contains itself
            (Self.binaryPlist([[0xA1, 1], [0xA1, 0]]), "it nests more than 32 levels deep (or refers to itself)"),
            // { 5: 6 }
            (Self.binaryPlist([[0xD1, 1, 2], [0x10, 5], [0x10, 6]]), "object 0 is a dictionary with a key that is not a string"),
            // [ref 7] with 2 objects
            (Self.binaryPlist([[0xA1, 7], [0x10, 5]]), "object 0 refers to a missing object"),
            // data claiming 14 bytes
            (Self.binaryPlist([[0x4E, 1, 2]]), "object 0 (marker 0x4E) runs past its end"),
            // a UTF-16 string with a lone high surrogate
            (Self.binaryPlist([[0x61, 0xD8, 0x00]]), "object 0 is a UTF-16 string with an unpaired surrogate"),
            (Data("bplist01".utf8) + Data(count: 40), "unsupported binary plist version '01'"),
        ]
        for (bytes, problem) in cases {
            for compression in SlowMotionSidecarFixture.Compression.allCases {
                let packed = try SlowMotionSidecarFixture.compress(bytes, compression)
                let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: packed))
                #expect(message == "\(path): adjustmentData is not a binary property list dictionary: \(problem)")
            }
        }
        // The same checks guard a binary sidecar file.
        let (path, message) = try Self.rejection(Self.binaryPlist([[0xD1, 1, 2], [0x51, 0x61], [0xC1, 3], [0x51, 0x62]]))
        #expect(message == "\(path): not a property list (an .AAE sidecar is an XML plist): object 2 has an unsupported type (marker 0xC1)")
    }

    @Test func missingSlowMotion() throws {
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: ["trim": ["start": 0]], compression: .zlib))
        #expect(message == "\(path): adjustmentData has no slowMotion dictionary: not a slow-motion sidecar (adjustment format 'com.apple.video.slomo')")
    }

    @Test func rateOutsideTheSlowMotionRange() throws {
        let cases: [(Any, String)] = [(2.0, "got 2.0"), (2, "got 2"), (0.01, "got 0.01"), (-0.25, "got -0.25"), (0, "got 0"),
                                      (Double.nan, "got nan"), ("fast", "got the text 'fast'"), (true, "got true")]
        for (rate, found) in cases {
            let payload = SlowMotionSidecarFixture.payload(rate: rate, regions: Self.example)
            let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: payload, compression: .none))
            #expect(message == "\(path): slowMotion.rate must be a number from 0.05 to 1 (slow motion only slows), \(found)")
        }
    }

    @Test func missingRate() throws {
        let payload: [String: Any] = ["slowMotion": ["regions": [Any]()]]
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: payload, compression: .none))
        #expect(message == "\(path): slowMotion.rate is missing; it must be a number from 0.05 to 1 (slow motion only slows)")
    }

    @Test func zeroDuration() throws {
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(
            rate: 0.25, regions: [(start: 600, duration: 0, timescale: 600)], compression: .zlib))
        #expect(message == "\(path): slowMotion.regions[0].timeRange.duration must be > 0, got 0/600 s")
    }

    @Test func negativeStartInTheSecondRegion() throws {
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(
            rate: 0.25, regions: [(start: 0, duration: 60, timescale: 600), (start: -1, duration: 60, timescale: 600)], compression: .zlib))
        #expect(message == "\(path): slowMotion.regions[1].timeRange.start is negative (-1/600 s); a slowed section starts within the clip")
    }

    @Test(arguments: [(0, "is an invalid CMTime: flags 0 lack the valid bit (1)"),
                      (2, "is an invalid CMTime: flags 2 lack the valid bit (1)"),
                      (5, "is not a numeric time: flags 5 mark it infinite or indefinite"),
                      (17, "is not a numeric time: flags 17 mark it infinite or indefinite")])
    func invalidFlags(flags: Int, problem: String) throws {
        let payload = SlowMotionSidecarFixture.payload(rate: 0.25, regions: Self.example, flags: flags)
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: payload, compression: .rawDeflate))
        #expect(message == "\(path): slowMotion.regions[0].timeRange.start \(problem)")
    }

    @Test func malformedTimes() throws {
        let cases: [(Any, String)] = [
            (["value": 1, "flags": 1, "epoch": 0], "has no timescale"),
            (["value": 1, "timescale": 0, "flags": 1, "epoch": 0], "has timescale 0; it must be an integer > 0"),
            (["value": 1, "timescale": -600, "flags": 1, "epoch": 0], "has timescale -600; it must be an integer > 0"),
            (["value": 1.5, "timescale": 600, "flags": 1, "epoch": 0], "has value 1.5, not an integer"),
            (["timescale": 600, "flags": 1, "epoch": 0], "has no value"),
            (["value": 1, "timescale": 600, "epoch": 0], "has no flags: not a CMTime"),
            (["value": 1, "timescale": 600, "flags": "valid", "epoch": 0], "has flags the text 'valid', not an integer"),
            (["value": Int64(1), "timescale": Int64(10_000_000_001), "flags": 1, "epoch": 0],
             "is 1/10000000001 s, which does not reduce to a 64-bit value over a 32-bit timescale"),
            (2.5, "must be a CMTime dictionary (value, timescale, flags, epoch), got 2.5"),
        ]
        for (start, problem) in cases {
            let payload = Self.replacingStart(in: SlowMotionSidecarFixture.payload(rate: 0.25, regions: Self.example), with: start)
            let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: payload, compression: .none))
            #expect(message == "\(path): slowMotion.regions[0].timeRange.start \(problem)")
        }
    }

    @Test func emptyOrMissingRegions() throws {
        let empty: [String: Any] = ["slowMotion": ["rate": 0.25, "regions": [Any]()]]
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(payload: empty, compression: .zlib))
        #expect(message == "\(path): slowMotion.regions must be a non-empty list of time ranges, got an empty list")
        let missing: [String: Any] = ["slowMotion": ["rate": 0.25]]
        let (missingPath, missingMessage) = try Self.rejection(SlowMotionSidecarFixture.data(payload: missing, compression: .zlib))
        #expect(missingMessage == "\(missingPath): slowMotion.regions is missing: no slowed section")
        let noRange: [String: Any] = ["slowMotion": ["rate": 0.25, "regions": [["range": 1]]]]
        let (noRangePath, noRangeMessage) = try Self.rejection(SlowMotionSidecarFixture.data(payload: noRange, compression: .zlib))
        #expect(noRangeMessage == "\(noRangePath): slowMotion.regions[0].timeRange is missing")
    }

    @Test func inflatingIsCapped() throws {
        // 17 MiB of zeros deflate to a few kilobytes; the parser stops at 16 MiB.
        let bomb = try SlowMotionSidecarFixture.compress(Data(count: 17 << 20), .zlib)
        #expect(bomb.count < 100_000)
        let (path, message) = try Self.rejection(SlowMotionSidecarFixture.data(adjustmentData: bomb))
        #expect(message == "\(path): adjustmentData is neither a binary property list nor zlib/deflate-compressed data that inflates: decompresses to more than 16 MiB")
    }

    // MARK: Fuzzing

    /// Truncated and bit-flipped sidecars — at the XML level and inside the payload, for
    /// each compression — parse or throw an error naming the sidecar; none crashes.
    @Test func garbledSidecarsParseOrThrowButNeverCrash() throws {
        var rng = SplitMix64(state: 0x51_0E_AA_E0)
        let path = "fuzz.AAE"
        var parsed = 0, rejected = 0
        for iteration in 0..<240 {
            let compression = SlowMotionSidecarFixture.Compression.allCases[iteration % 3]
            let binary = try PropertyListSerialization.data(
                fromPropertyList: SlowMotionSidecarFixture.payload(rate: 0.25, regions: [
                    (start: 600, duration: 1200, timescale: 600), (start: 4_000_000_000, duration: 1_000_000_000, timescale: 1_000_000_000),
                ]), format: .binary, options: 0)
            let data: Data
            if iteration % 2 == 0 {
                // Garble the payload, keeping the XML intact, to reach inflate and the bplist parser.
                let payload = Self.garble(Array(try SlowMotionSidecarFixture.compress(binary, compression)), using: &rng)
                data = try SlowMotionSidecarFixture.data(adjustmentData: Data(payload))
            } else {
                let sidecar = try SlowMotionSidecarFixture.data(adjustmentData: SlowMotionSidecarFixture.compress(binary, compression))
                data = Data(Self.garble(Array(sidecar), using: &rng))
            }
            do {
                let sidecar = try SlowMotionSidecar(data: data, path: path)
                #expect(SlowMotionSidecar.rateRange.contains(sidecar.rate))
                #expect(!sidecar.regions.isEmpty && sidecar.regions.allSatisfy { $0.start >= .zero && $0.duration > .zero })
                parsed += 1
            } catch {
                #expect(error.description.hasPrefix("\(path): "), "\(error)")
                rejected += 1
            }
        }
        #expect(rejected > 100, "parsed \(parsed), rejected \(rejected)")
    }

    /// Truncates `bytes` at a random point, or flips one to four random bits.
    static func garble(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        guard !out.isEmpty else { return out }
        if Bool.random(using: &rng) {
            out.removeLast(Int.random(in: 1...out.count, using: &rng))
        } else {
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                out[Int.random(in: 0..<out.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            }
        }
        return out
    }

    // MARK: Helpers

    /// A binary plist (`bplist00`) of `objects` — each its marker and body, references one
    /// byte — whose top object is the first.
    static func binaryPlist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1] + be64(objects.count) + be64(0) + be64(table)
        return Data(bytes)
    }

    /// Writes `data` as `clip.AAE` in a fresh folder and returns the path and the error
    /// description of reading it (or `(parsed)` when it parses).
    static func rejection(_ data: Data) throws -> (path: String, message: String) {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("clip.AAE")
        try data.write(to: URL(fileURLWithPath: path))
        return (path, message(reading: path))
    }

    /// The description of the error reading the sidecar at `path` throws, or `(parsed)`.
    static func message(reading path: String) -> String {
        do {
            _ = try SlowMotionSidecar(contentsOf: path)
            return "(parsed)"
        } catch {
            return error.description
        }
    }

    /// `payload` with its first region's start CMTime replaced by `start`.
    static func replacingStart(in payload: [String: Any], with start: Any) -> [String: Any] {
        guard var slowMotion = payload["slowMotion"] as? [String: Any],
              var regions = slowMotion["regions"] as? [[String: Any]],
              var timeRange = regions.first?["timeRange"] as? [String: Any] else { return payload }
        timeRange["start"] = start
        regions[0]["timeRange"] = timeRange
        slowMotion["regions"] = regions
        return ["slowMotion": slowMotion]
    }
}
