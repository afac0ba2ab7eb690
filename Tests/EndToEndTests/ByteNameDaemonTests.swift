import Foundation
import DropcutSupport
import Testing
import DropcutDaemon
import TestSupport
import DropcutTimeline

/// Clips whose names are not UTF-8 (an old Windows or SMB client writing Latin-1 or
/// Shift-JIS), hold control characters, or read like escapes, through the real
/// `dropcut watch --once`: rendered like any other, shown escaped in outputs, logs and
/// error files, archived or failed under the bytes they were dropped with.
@Suite(.tags(.slow)) struct ByteNameDaemonTests {
    /// `café` in Latin-1: not UTF-8.
    static let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]

    @Test func aClipNamedInLatin1IsRenderedWithItsSidecarAndArchivedUnderItsBytes() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness(retries: 0)
        try h.drop(bytes: Self.latin1 + Array(".mp4".utf8))
        try h.write(bytes: Self.latin1 + Array(".yaml".utf8),
                    "version: 1\noutput: { filename: \"{name}.square.mp4\", size: 240x240, fit: fill }\n")
        try h.drop("plain.mp4")

        let result = try await h.runOnce()

        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("2 done, 0 failed"), "\(result.stdout)")
        // The output takes the printable name; the sidecar recipe applied to it alone.
        #expect(h.files(h.outbox) == [#"caf\xE9.square.mp4"#, "plain.dropcut.mp4"])
        let square = try FFprobe.streams(of: (h.outbox as NSString).appendingPathComponent(#"caf\xE9.square.mp4"#))
        #expect(square.first { $0.codecType == "video" }.map { [$0.width, $0.height] } == [240, 240])
        // The original and its sidecar are archived under their own bytes, intact.
        #expect(h.entries(h.archive) == [Self.latin1 + Array(".mp4".utf8), Self.latin1 + Array(".yaml".utf8),
                                         Array("plain.mp4".utf8)].sorted { $0.lexicographicallyPrecedes($1) })
        #expect(try h.contents(Self.latin1 + Array(".mp4".utf8), in: h.archive) == (try Data(contentsOf: URL(fileURLWithPath: h.clip()))))
        #expect(h.entries(h.inbox) == [Array(".dropcut".utf8)])
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.failed) == [])

        // stderr and journald show the escaped name, never the raw bytes or U+FFFD.
        #expect(result.stderr.contains(#"claimed caf\xE9.mp4"#), "\(result.stderr)")
        #expect(result.stderr.contains(#"done caf\xE9.mp4 -> caf\xE9.square.mp4"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{FFFD}"))
        var entries: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            entries = (try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? []
            return entries.filter { $0["MESSAGE_ID"] == MessageID.jobDone.rawValue }.count >= 2
        }
        let done = entries.filter { $0["MESSAGE_ID"] == MessageID.jobDone.rawValue }
        let cafe = try #require(done.first { $0["DROPCUT_INPUT"] == (h.inbox as NSString).appendingPathComponent(#"caf\xE9.mp4"#) },
                                "\(done.map { $0["DROPCUT_INPUT"] ?? "?" })")
        #expect(cafe["MESSAGE"] == #"done caf\xE9.mp4 -> caf\xE9.square.mp4"#)
        #expect(cafe["DROPCUT_RECIPE"] == (h.inbox as NSString).appendingPathComponent(#"caf\xE9.yaml"#))
        #expect(cafe["DROPCUT_OUTPUT"] == (h.outbox as NSString).appendingPathComponent(#"caf\xE9.square.mp4"#))
        let claimed = entries.filter { $0["MESSAGE_ID"] == MessageID.jobClaimed.rawValue }
        #expect(claimed.contains { $0["MESSAGE"] == #"claimed caf\xE9.mp4"# && $0["DROPCUT_SIDECARS"] == #"caf\xE9.yaml"# })
    }

    /// Garbage under a Latin-1 name, and under a name that literally reads `caf\xE9.mov`,
    /// and under a name with a newline: each fails, back under its own bytes in failed/,
    /// with an error file named and naming it in its printable form — three distinct ones.
    @Test func failingClipsWithByteNamesLandInFailedWithEscapedErrorFiles() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness(retries: 0)
        let garbage = String(repeating: "not a movie ", count: 500)
        let names: [[UInt8]] = [Self.latin1 + Array(".mov".utf8), Array(#"caf\xE9.mov"#.utf8),
                                Array("two\nlines.mov".utf8)]
        for name in names { try h.write(bytes: name, garbage) }

        let result = try await h.runOnce()

        #expect(result.status == 1, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("0 done, 3 failed"), "\(result.stdout)")
        let printable = [#"caf\xE9.mov"#, #"caf\\xE9.mov"#, #"two\x0Alines.mov"#]
        let errorFiles = printable.map { $0 + ".error.txt" }
        #expect(h.entries(h.failed) == (names + errorFiles.map { Array($0.utf8) }).sorted { $0.lexicographicallyPrecedes($1) })
        for (name, shown) in zip(names, printable) {
            #expect(try h.contents(name, in: h.failed) == Data(garbage.utf8))
            let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent(shown + ".error.txt"), encoding: .utf8)
            #expect(text.hasPrefix("dropcut could not render \(shown)\n"), "\(text)")
            #expect(text.contains("Reason: \(shown): "), "\(text)")
            #expect(text.contains("not a supported media container") || text.contains("Invalid data"), "\(text)")
            #expect(!text.contains("\u{FFFD}") && !text.contains("two\nlines"))
        }
        #expect(h.files(h.outbox) == [])
        #expect(h.claimedLeftovers() == [])
        #expect(result.stderr.contains(#"failed two\x0Alines.mov: "#), "\(result.stderr)")
        #expect(!result.stderr.contains("two\nlines"))

        var failed: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            failed = ((try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? [])
                .filter { $0["MESSAGE_ID"] == MessageID.jobFailed.rawValue }
            return failed.count >= 3
        }
        #expect(Set(failed.compactMap { $0["DROPCUT_INPUT"].map { ($0 as NSString).lastPathComponent } }) == Set(printable))
        let status = try h.statusJSON()
        let failures = try #require(status["failures"] as? [[String: Any]])
        #expect(Set(failures.compactMap { $0["input"] as? String }) == Set(printable))
    }

    /// 100 Shift-JIS-like bytes escape to 400: the claimed name is shortened to fit
    /// NAME_MAX (clip and sidecar alike), the clip renders, and the archive still gets
    /// both back under their full original bytes.
    @Test func aNameWhoseEscapedFormIsPastNameMaxIsRenderedAndArchivedWhole() async throws {
        let h = try DaemonHarness(retries: 0)
        let stem = [UInt8](repeating: 0x93, count: 100)
        try h.drop(bytes: stem + Array(".mp4".utf8))
        try h.write(bytes: stem + Array(".yaml".utf8), "version: 1\noutput: { filename: \"{name}.small.mp4\", size: 160x120 }\n")

        let result = try await h.runOnce()

        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        let outputs = h.files(h.outbox)
        // `{name}.small.mp4` is cut to fit as any long name's output is; no escape is cut in half.
        #expect(outputs.count == 1 && outputs.allSatisfy {
            $0.hasPrefix(String(repeating: #"\x93"#, count: 50)) && $0.hasSuffix(".mp4") && $0.utf8.count <= FileName.maximumBytes
                && RawFileName(printable: $0) != nil
        }, "\(outputs)")
        #expect(h.entries(h.archive) == [stem + Array(".mp4".utf8), stem + Array(".yaml".utf8)])
        #expect(h.entries(h.inbox) == [Array(".dropcut".utf8)])
        #expect(h.claimedLeftovers() == [])
    }

    /// A crash at each point of a byte-named clip's way (before and after the claim's
    /// rename, after the commit, mid-archive): the next start finishes each job once, from
    /// its record, and every original ends in the archive under its own bytes.
    @Test func interruptedJobsOfByteNamedClipsEndArchivedUnderTheirBytes() async throws {
        let h = try DaemonHarness()
        let claimedRoot = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        for folder in [claimedRoot, h.outbox, h.archive] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        func raw(_ letter: String) -> RawFileName { RawFileName(bytes: Array(letter.utf8) + [0xE9] + Array(".mp4".utf8)) }
        func claimed(_ id: String, _ name: RawFileName?) throws {
            let dir = (claimedRoot as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            if let name { try FileManager.default.copyItem(atPath: try h.clip(), toPath: (dir as NSString).appendingPathComponent(name.printable)) }
        }
        func record(_ id: String, _ name: RawFileName, _ state: JobRecord.State, _ edit: (inout JobRecord) -> Void = { _ in }) throws {
            var record = JobRecord(id: id, folder: h.folderName, input: name.printable, sidecars: [], state: state)
            record.dropped = [name.printable: name.printable]
            record.recipes = ["identity"]
            edit(&record)
            try store.save(&record)
        }
        func out(_ name: String) -> String { (h.outbox as NSString).appendingPathComponent(name) }

        // a: killed between the record and the rename: the clip is still in the inbox.
        try claimed("a-job", nil)
        try h.drop(bytes: raw("a").bytes)
        try record("a-job", raw("a"), .claiming)
        // b: killed right after the rename, before the record said so.
        try claimed("b-job", raw("b"))
        try record("b-job", raw("b"), .claiming)
        // e: committed, killed before archiving.
        try claimed("e-job", raw("e"))
        try "rendered e".write(toFile: out(#"e\xE9.dropcut.mp4"#), atomically: true, encoding: .utf8)
        try record("e-job", raw("e"), .committed) { $0.output = out(#"e\xE9.dropcut.mp4"#) }
        // f: killed mid-archive: the original is under its hidden name in the archive.
        try claimed("f-job", nil)
        try FileManager.default.copyItem(atPath: try h.clip(),
                                         toPath: (h.archive as NSString).appendingPathComponent(#".f\xE9.mp4.moving-f-job"#))
        try "rendered f".write(toFile: out(#"f\xE9.dropcut.mp4"#), atomically: true, encoding: .utf8)
        try record("f-job", raw("f"), .committed) { $0.output = out(#"f\xE9.dropcut.mp4"#) }

        let result = try await h.runOnce()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.outbox, hidden: true) == ["a", "b", "e", "f"].map { $0 + #"\xE9.dropcut.mp4"# })
        for name in ["e", "f"] {
            #expect(try String(contentsOfFile: out(name + #"\xE9.dropcut.mp4"#), encoding: .utf8) == "rendered \(name)")
        }
        #expect(h.entries(h.archive) == ["a", "b", "e", "f"].map { raw($0).bytes })
        #expect(h.entries(h.inbox) == [Array(".dropcut".utf8)])
        #expect(h.claimedLeftovers() == [])
        #expect(store.all().allSatisfy { $0.state == .done }, "\(store.all().map { ($0.input, $0.state) })")
    }
}

extension DaemonHarness {
    /// Drops a copy of the template clip under `bytes` (any name: FileManager cannot make
    /// one that is not UTF-8), aged so it has settled.
    func drop(bytes name: [UInt8]) throws {
        try write(bytes: name, Data(contentsOf: URL(fileURLWithPath: clip())))
    }

    /// Writes `contents` to the inbox file `bytes`, aged so it has settled.
    func write(bytes name: [UInt8], _ contents: String) throws {
        try write(bytes: name, Data(contents.utf8))
    }

    func write(bytes name: [UInt8], _ contents: Data) throws {
        let path = RawFileName(bytes: name).path(in: inbox)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["errno": errno]) }
        defer { close(fd) }
        let written = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == contents.count else { throw CocoaError(.fileWriteUnknown) }
        let past = timespec(tv_sec: time(nil) - 60, tv_nsec: 0)
        var times = [past, past]
        guard futimens(fd, &times) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The names in `folder` as bytes (FileManager shows bytes that are not UTF-8 as
    /// U+FFFD), sorted.
    func entries(_ folder: String) -> [[UInt8]] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            // In place up to the NUL: readdir's records can be shorter than `d_name`.
            guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { continue }
            let start = (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self)
            let name = Array(UnsafeRawBufferPointer(start: start, count: strlen(start)))
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The contents of the file `bytes` in `folder`.
    func contents(_ name: [UInt8], in folder: String) throws -> Data {
        let fd = open(RawFileName(bytes: name).path(in: folder), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
    }
}
