import Foundation
import Logging
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
@testable import DropcutRender
import DropcutSupport
import Synchronization
import TestSupport
import DropcutTimeline
import DropcutDigest

/// `outputs[].hls`: a ladder rendered from one composite, read back by the ffmpeg CLI —
/// the master and every rendition decoded end to end, the segments within their target,
/// keyframes on the same frames in every rung, the master's attributes what the streams
/// are — and published as one folder, listed in the manifest.
@Suite struct HLSLadderTests {
    static let logger = Logger(label: "dropcut-test")

    /// `#EXTINF` durations and `#EXT-X-TARGETDURATION` of a media playlist.
    static func segments(_ playlist: String) throws -> (target: Int, durations: [Double]) {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        var target = -1
        var durations: [Double] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXT-X-TARGETDURATION:") { target = Int(line.dropFirst(22)) ?? -1 }
            if line.hasPrefix("#EXTINF:") { durations.append(Double(line.dropFirst(8).prefix { $0 != "," }) ?? -1) }
        }
        return (target, durations)
    }

    /// The attributes of each `#EXT-X-STREAM-INF` line.
    static func streams(_ master: String) throws -> [(attributes: [String: String], uri: String)] {
        let lines = try String(contentsOfFile: master, encoding: .utf8).split(separator: "\n").map(String.init)
        var found: [([String: String], String)] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") && index + 1 < lines.count {
            var attributes: [String: String] = [:]
            // Split on commas outside quotes.
            var key = "", value = "", inKey = true, quoted = false
            for character in line.dropFirst(18) + "," {
                if inKey {
                    if character == "=" { inKey = false } else { key.append(character) }
                } else if character == "\"" {
                    quoted.toggle()
                } else if character == ",", !quoted {
                    attributes[key] = value
                    key = ""; value = ""; inKey = true
                } else {
                    value.append(character)
                }
            }
            found.append((attributes, lines[index + 1]))
        }
        return found
    }

    /// Times of the keyframes of a rendition, as ffprobe reads them through its playlist.
    static func keyframes(_ playlist: String) throws -> [String] {
        try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-skip_frame", "nokey", "-show_entries", "frame=pts_time",
                                           "-of", "csv=p=0", playlist]).split(separator: "\n").map(String.init)
    }

    @Test func aLadderPlaysEndToEndWithAlignedKeyframes() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-hls")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 3)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast } }
            outputs:
              - { filename: "{name}.small.mp4", size: 160x120 }
              - { filename: "{name}.m3u8", hls: { heights: [480, 240, 120], segment: 1s } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.items[1].publishedName == "clip")
        #expect(deliverables.items[1].production.hlsRungs(try #require({ if case let .hls(l) = deliverables.items[1].kind { l } else { nil } }()))
                == [PixelSize(width: 320, height: 240), PixelSize(width: 160, height: 120)], "480 is taller than the clip: left out")
        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)

        // Published: the video, the ladder's folder and the manifest; nothing hidden left.
        #expect(try DeliverablesTests.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"])
                == ["clip", "clip.dropcut.json", "clip.small.mp4"])
        let folder = dir.file("clip")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["120p", "240p", "audio", "clip.m3u8"])
        let master = dir.file("clip/clip.m3u8")
        let ladder = try #require(files.first { $0.kind == "hls" })
        #expect(ladder.name == "clip/clip.m3u8" && ladder.width == 320 && ladder.height == 240)
        #expect(ladder.sha256 == (try SHA256.hex(ofFile: master)))
        let everything = try FileManager.default.subpathsOfDirectory(atPath: folder).map { dir.file("clip/\($0)") }
        var total: Int64 = 0
        for path in everything where (try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular {
            total += try FileSize.bytes(at: path)
        }
        #expect(ladder.bytes == total)

        // The master: each rung's size, codecs as ffprobe reads the stream, bandwidths that
        // bound what the rendition really carries.
        let streams = try Self.streams(master)
        #expect(streams.map(\.uri) == ["240p/index.m3u8", "120p/index.m3u8"])
        let text = try String(contentsOfFile: master, encoding: .utf8)
        #expect(text.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\"") && text.contains("URI=\"audio/index.m3u8\""), "\(text)")
        let audioBytes = try FileManager.default.contentsOfDirectory(atPath: dir.file("clip/audio"))
            .reduce(0) { $0 + (try FileSize.bytes(at: dir.file("clip/audio/\($1)"))) }
        for (attributes, uri) in streams {
            let playlist = dir.file("clip/\(uri)")
            let probed = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                            "stream=width,height,level,profile,nb_read_frames", "-of", "default=nw=1", playlist])
            func field(_ name: String) -> String { probed.split(separator: "\n").first { $0.hasPrefix("\(name)=") }.map { String($0.dropFirst(name.count + 1)) } ?? "" }
            #expect(attributes["RESOLUTION"] == "\(field("width"))x\(field("height"))")
            #expect(field("nb_read_frames") == "90", "every frame of the 3 s clip in \(uri)")
            // x264 writes the lowest profile its tools need (ultrafast: Constrained Baseline).
            let profile = ["Constrained Baseline": "42", "Baseline": "42", "Main": "4d", "High": "64"][field("profile")] ?? "?"
            let codecs = attributes["CODECS"] ?? ""
            #expect(codecs.hasPrefix("avc1.\(profile)") && codecs.hasSuffix(String(format: "%02x", Int(field("level")) ?? -1) + ",mp4a.40.2"),
                    "\(attributes) \(probed)")
            #expect(attributes["AUDIO"] == "audio" && attributes["VIDEO-RANGE"] == "SDR" && attributes["FRAME-RATE"] == "30.000")
            let rungBytes = try FileManager.default.contentsOfDirectory(atPath: (playlist as NSString).deletingLastPathComponent)
                .reduce(0) { $0 + (try FileSize.bytes(at: ((playlist as NSString).deletingLastPathComponent as NSString).appendingPathComponent($1))) }
            let averageBits = Double(rungBytes + audioBytes) * 8 / 3
            let bandwidth = Double(attributes["BANDWIDTH"] ?? "") ?? 0, average = Double(attributes["AVERAGE-BANDWIDTH"] ?? "") ?? 0
            #expect(bandwidth >= average && average > 0.8 * averageBits && average < 1.2 * averageBits && bandwidth < 10 * averageBits,
                    "\(attributes) against \(averageBits) bit/s")
        }

        // Segments: 1 s each, within the target. The video's cut on its keyframes; the
        // audio's at the first packet of each second, so the AAC encoder's last frame (its
        // priming delay pushes the sound 21 ms late) may make a short last one.
        for name in ["240p", "120p", "audio"] {
            let (target, durations) = try Self.segments(dir.file("clip/\(name)/index.m3u8"))
            #expect(target == 1 && durations.allSatisfy { $0 <= Double(target) + 0.05 }, "\(name): \(target) \(durations)")
            #expect(durations.prefix(3).allSatisfy { abs($0 - 1) <= 0.05 } && abs(durations.reduce(0, +) - 3) <= 0.05, "\(name): \(durations)")
            #expect(name == "audio" ? durations.count <= 4 : durations.count == 3, "\(name): \(durations)")
        }
        // Keyframes on the same frames in every rung: one a segment.
        let keys = try ["240p", "120p"].map { try Self.keyframes(dir.file("clip/\($0)/index.m3u8")) }
        #expect(keys[0] == keys[1] && keys[0].count == 3, "\(keys)")

        // The master decoded end to end by the ffmpeg CLI: every rendition, video and sound.
        let decoded = try await Command.runChecked("ffmpeg", ["-v", "error", "-i", master, "-map", "0", "-f", "null", "-"])
        #expect(decoded.isEmpty, "\(decoded)")
        let audioDuration = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                               dir.file("clip/audio/index.m3u8")])
        #expect(abs((Double(audioDuration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 3) < 0.1, "\(audioDuration)")

        // Rendering again replaces the ladder (as a file is replaced), leaving nothing aside.
        _ = try await deliverables.render(into: dir.path, tag: "u", logger: Self.logger)
        #expect(try DeliverablesTests.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"])
                == ["clip", "clip.dropcut.json", "clip.small.mp4"])
    }

    /// A ladder whose rendering fails half-way leaves no folder and publishes nothing.
    @Test func aCancelledLadderLeavesNothing() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-hls-cancel")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 4)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast } }
            outputs:
              - { filename: "{name}.m3u8", hls: { heights: [240, 120], segment: 1s } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        let started = Mutex(false)
        let task = Task {
            try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger) { _, progress in
                if progress.framesWritten > 10 { started.withLock { $0 = true } }
            }
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        // The ladder's hidden folder exists while it renders.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.hasPrefix(".clip.partial-t") })
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(try DeliverablesTests.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"]) == [])
    }

    @Test func rungsKeepTheShapeAndNeverUpscale() {
        let hd = PixelSize(width: 1920, height: 1080)
        #expect(HLSExportSession.rungs(heights: [480, 1080, 720], renderSize: hd)
                == [hd, PixelSize(width: 1280, height: 720), PixelSize(width: 854, height: 480)])
        #expect(HLSExportSession.rungs(heights: [2160, 1080], renderSize: hd) == [hd])
        #expect(HLSExportSession.rungs(heights: [2160], renderSize: hd) == [hd], "none left: the render's own size")
        #expect(HLSExportSession.rungs(heights: [1080, 360], renderSize: PixelSize(width: 1080, height: 1920))
                == [PixelSize(width: 608, height: 1080), PixelSize(width: 202, height: 360)])
    }

    @Test func theMasterPlaylistsText() {
        let playlist = MasterPlaylist(variants: [
            .init(uri: "720p/index.m3u8", size: PixelSize(width: 1280, height: 720), bandwidth: 2_500_000, averageBandwidth: 2_000_000,
                  videoCodec: "avc1.64001f", frameRate: 30000.0 / 1001, videoRange: "SDR"),
        ], audio: .init(uri: "audio/index.m3u8", codec: "mp4a.40.2"))
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="main",DEFAULT=YES,AUTOSELECT=YES,URI="audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",FRAME-RATE=29.970,VIDEO-RANGE=SDR,AUDIO="audio"
            720p/index.m3u8

            """)
        let silent = MasterPlaylist(variants: playlist.variants, audio: nil)
        #expect(!silent.text.contains("AUDIO") && silent.text.contains("CODECS=\"avc1.64001f\""))
    }
}
