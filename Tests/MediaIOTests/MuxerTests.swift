import Foundation
import Testing
import DropcutMediaIO
import DropcutTimeline
import TestSupport

/// `Muxer` writing what `VideoEncoder` and `AudioEncoder` make, checked with ffprobe and
/// by reading the file's top-level MP4 boxes; plus its errors and cancellation.
@Suite struct MuxerTests {
    /// Encodes `frames` frames of the video test pattern and `samples` samples of the
    /// audio test sine into `path`, interleaved in presentation order as an export would,
    /// through the encode loop of FFmpeg's mux.c: send, drain, ..., send(nil), drain.
    static func render(to path: String, video: VideoEncoderSettings? = nil, frames: Int = 0,
                       audio: AudioEncoderSettings? = nil, samples: Int = 0, creationTime: String? = nil) throws {
        let muxer = try Muxer(path: path)
        let videoEncoder = try video.map { try VideoEncoder(settings: $0, globalHeader: muxer.needsGlobalHeader) }
        let audioEncoder = try audio.map { try AudioEncoder(settings: $0, globalHeader: muxer.needsGlobalHeader) }
        let videoStream = try videoEncoder.map { try muxer.addStream(for: $0) }
        let audioStream = try audioEncoder.map { try muxer.addStream(for: $0) }
        try muxer.writeHeader(creationTime: creationTime)

        let picture = try video.map { try VideoFrame(width: $0.size.width, height: $0.size.height) }
        let block = try audioEncoder.map {
            try AudioFrame(channels: $0.settings.channels, sampleRate: $0.settings.sampleRate, capacity: $0.frameSize)
        }
        var frame = 0, sample = 0
        while true {
            let videoLeft = videoEncoder != nil && frame < frames, audioLeft = audioEncoder != nil && sample < samples
            guard videoLeft || audioLeft else { break }
            let videoFirst: Bool
            if let video, videoLeft, audioLeft, let audio {
                videoFirst = video.frameDuration.multiplied(by: Int64(frame), dividedBy: 1)
                    <= MediaTime(value: Int64(sample), timescale: Int32(audio.sampleRate))
            } else {
                videoFirst = videoLeft
            }
            if videoFirst, let videoEncoder, let picture, let videoStream {
                try VideoEncoderTests.paint(picture, index: frame)
                picture.pts = Int64(frame)
                try videoEncoder.send(picture)
                #expect(try muxer.drain(videoEncoder, into: videoStream) == .needsInput)
                frame += 1
            } else if let audioEncoder, let block, let audioStream {
                let count = min(audioEncoder.frameSize, samples - sample)
                try AudioEncoderTests.fill(block, from: sample, count: count)
                try audioEncoder.send(block)
                #expect(try muxer.drain(audioEncoder, into: audioStream) == .needsInput)
                sample += count
            }
        }
        if let videoEncoder, let videoStream {
            try videoEncoder.send(nil)
            #expect(try muxer.drain(videoEncoder, into: videoStream) == .endOfStream)
        }
        if let audioEncoder, let audioStream {
            try audioEncoder.send(nil)
            #expect(try muxer.drain(audioEncoder, into: audioStream) == .endOfStream)
        }
        try muxer.finish()
    }

    /// ffprobe's full report (`-show_streams -show_format`, frames decoded and counted).
    static func probe(_ path: String) throws -> (streams: [[String: Any]], format: [String: Any]) {
        let output = try Command.runChecked("ffprobe", ["-v", "error", "-count_frames", "-show_streams", "-show_format",
                                                        "-of", "json", path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        return (report["streams"] as? [[String: Any]] ?? [], report["format"] as? [String: Any] ?? [:])
    }

    /// ffprobe's seconds string (`"2.000000"`) as a number.
    static func seconds(_ value: Any?) -> Double? { (value as? String).flatMap(Double.init) }

    /// The four-character types of the file's top-level boxes, in file order. A box
    /// header is a 32-bit big-endian size and a type; size 1 means a 64-bit size follows,
    /// size 0 means "to the end of the file".
    static func topLevelBoxes(of path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func bigEndian(_ at: Int, _ count: Int) -> UInt64 { bytes[at..<at + count].reduce(0) { $0 << 8 | UInt64($1) } }
        var boxes: [String] = [], offset = 0
        while offset < bytes.count {
            try #require(offset + 8 <= bytes.count, "truncated box header at \(offset)")
            var size = bigEndian(offset, 4)
            if size == 1 {
                try #require(offset + 16 <= bytes.count, "truncated 64-bit size at \(offset)")
                size = bigEndian(offset + 8, 8)
            } else if size == 0 {
                size = UInt64(bytes.count - offset)
            }
            boxes.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            try #require(size >= 8 && size <= UInt64(bytes.count - offset), "box \(boxes.last!) size \(size) at \(offset)")
            offset += Int(size)
        }
        return boxes
    }

    static let video = VideoEncoderTests.settings(crf: 18, preset: "veryfast")
    static let audio = AudioEncoderSettings(sampleRate: 48_000, channels: 2, bitrate: 160_000)

    @Test func writesH264AndAACIntoAFaststartMP4() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("out.mp4")
        try Self.render(to: path, video: Self.video, frames: 60, audio: Self.audio, samples: 96_000)

        let (streams, format) = try Self.probe(path)
        #expect(format["format_name"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")
        try #require(streams.count == 2)
        let video = streams[0], audio = streams[1]
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["profile"] as? String == "High")
        #expect(video["pix_fmt"] as? String == "yuv420p")
        #expect(video["width"] as? Int == 320 && video["height"] as? Int == 240)
        #expect(video["sample_aspect_ratio"] as? String == "1:1")
        #expect(video["color_range"] as? String == "tv")
        #expect(video["color_space"] as? String == "bt709")
        #expect(video["color_primaries"] as? String == "bt709")
        #expect(video["color_transfer"] as? String == "bt709")
        #expect(video["r_frame_rate"] as? String == "30/1")
        #expect(video["nb_read_frames"] as? String == "60")
        #expect(audio["codec_name"] as? String == "aac")
        #expect(audio["sample_rate"] as? String == "48000")
        #expect(audio["channels"] as? Int == 2)
        #expect(audio["channel_layout"] as? String == "stereo")

        let oneFrame = 1.0 / 30
        let videoSeconds = try #require(Self.seconds(video["duration"]))
        let audioSeconds = try #require(Self.seconds(audio["duration"]))
        print("out.mp4: video \(videoSeconds) s, audio \(audioSeconds) s, container \(format["duration"] ?? "?") s")
        #expect(abs(videoSeconds - 2) <= oneFrame, "video \(videoSeconds) s")
        #expect(abs(audioSeconds - 2) <= oneFrame, "audio \(audioSeconds) s")
        // Exactly: the edit list hides AAC's priming and padding, leaving the 96000 input
        // samples; both streams start at zero, so they are in sync.
        #expect(audio["duration_ts"] as? Int == 96_000)
        #expect(video["start_time"] as? String == "0.000000")
        #expect(audio["start_time"] as? String == "0.000000")

        // Faststart: the index (moov) comes before the media data (mdat).
        let boxes = try Self.topLevelBoxes(of: path)
        print("out.mp4 boxes: \(boxes)")
        #expect(boxes.first == "ftyp")
        let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat)
        #expect(boxes.filter { $0 == "moov" }.count == 1)

        // No display matrix: the picture is already upright. The control below proves
        // ffprobe reports one when a file has it.
        #expect(!Self.hasDisplayMatrix(video))
        let rotated = dir.file("rotated.mp4")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path, "-c", "copy",
                                          "-metadata:s:v:0", "rotate=90", rotated])
        #expect(Self.hasDisplayMatrix(try Self.probe(rotated).streams[0]))
    }

    static func hasDisplayMatrix(_ stream: [String: Any]) -> Bool {
        let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
        let tags = stream["tags"] as? [String: Any] ?? [:]
        return sideData.contains { $0["side_data_type"] as? String == "Display Matrix" } || tags["rotate"] != nil
    }

    @Test func creationTimeBecomesAFormatTag() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let stamped = dir.file("stamped.mov"), plain = dir.file("plain.mp4")
        try Self.render(to: stamped, video: VideoEncoderTests.settings(preset: "ultrafast"), frames: 3,
                        creationTime: "2024-05-01T12:34:56Z")
        try Self.render(to: plain, video: VideoEncoderTests.settings(preset: "ultrafast"), frames: 3)

        let format = try Self.probe(stamped).format
        #expect(format["format_name"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")
        let tags = try #require(format["tags"] as? [String: Any])
        let creation = try #require(tags["creation_time"] as? String)
        #expect(creation.hasPrefix("2024-05-01T12:34:56"), "\(creation)")
        #expect(tags["major_brand"] as? String == "qt  ")  // .mov really is QuickTime
        // Without one, none is written (ffprobe is not inventing the tag).
        let plainTags = try Self.probe(plain).format["tags"] as? [String: Any] ?? [:]
        #expect(plainTags["creation_time"] == nil)
    }

    @Test func missingDirectoryThrowsNamingThePath() throws {
        let path = "/nonexistent-dir/x.mp4"
        let error = try #require(throws: FFmpegError.self) { _ = try Muxer(path: path) }
        #expect(error.path == path)
        #expect(error.function == "avio_open")
        #expect(error.code == -ENOENT)
        #expect(error.description.contains(path))
    }

    @Test(arguments: ["x.xyz", "x.avi", "x.mkv", "noextension", ".mp4"])
    func unsupportedExtensionThrowsNamingThePath(_ name: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file(name)
        let error = try #require(throws: FFmpegError.self) { _ = try Muxer(path: path) }
        #expect(error.path == path)
        #expect(error.description.contains(path))
        #expect(error.message == "Muxer not found")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: ["a.mp4", "b.m4v", "c.mov", "D.MP4"])
    func mp4AndMovExtensionsOpenAndNeedGlobalHeaders(_ name: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let muxer = try Muxer(path: dir.file(name))
        #expect(muxer.needsGlobalHeader)
        #expect(FileManager.default.fileExists(atPath: dir.file(name)))
        muxer.abandon()
    }

    @Test func abandonDeletesThePartialFile() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("cancelled.mp4")
        let muxer = try Muxer(path: path)
        let encoder = try VideoEncoder(settings: VideoEncoderTests.settings(preset: "ultrafast"),
                                       globalHeader: muxer.needsGlobalHeader)
        let stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let frame = try VideoFrame(width: 320, height: 240)
        for index in 0..<5 {
            try VideoEncoderTests.paint(frame, index: index)
            frame.pts = Int64(index)
            try encoder.send(frame)
            try muxer.drain(encoder, into: stream)
        }
        #expect(FileManager.default.fileExists(atPath: path))
        muxer.abandon()
        #expect(!FileManager.default.fileExists(atPath: path))
        muxer.abandon()  // twice is harmless
        // A cancelled muxer refuses further work instead of writing into a closed file.
        #expect(throws: FFmpegError.self) { try muxer.finish() }
    }

    @Test func abandonBeforeTheHeaderDeletesTheFileToo() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("early.mp4")
        let muxer = try Muxer(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        muxer.abandon()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func abandonAfterFinishKeepsTheFinishedFile() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("done.mp4")
        let muxer = try Muxer(path: path)
        let encoder = try AudioEncoder(settings: Self.audio, globalHeader: muxer.needsGlobalHeader)
        let stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let block = try AudioFrame(channels: 2, sampleRate: 48_000, capacity: encoder.frameSize)
        for start in stride(from: 0, to: 4096, by: encoder.frameSize) {
            try AudioEncoderTests.fill(block, from: start, count: encoder.frameSize)
            try encoder.send(block)
            try muxer.drain(encoder, into: stream)
        }
        try encoder.send(nil)
        #expect(try muxer.drain(encoder, into: stream) == .endOfStream)
        try muxer.finish()
        muxer.abandon()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try FFprobe.codecNames(of: path) == ["aac"])
    }

    @Test func callsOutOfOrderThrowInsteadOfCrashing() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let muxer = try Muxer(path: dir.file("order.mp4"))
        defer { muxer.abandon() }
        let encoder = try VideoEncoder(settings: VideoEncoderTests.settings(preset: "ultrafast"),
                                       globalHeader: muxer.needsGlobalHeader)
        let packet = try Packet()

        // Packets and trailer before the header.
        let early = try #require(throws: FFmpegError.self) { try muxer.write(packet, from: encoder.timeBase, stream: 0) }
        #expect(early.code == -EINVAL)
        #expect(try #require(throws: FFmpegError.self) { try muxer.finish() }.function == "av_write_trailer")
        // A header with no streams: FFmpeg's own refusal, naming the file.
        let empty = try #require(throws: FFmpegError.self) { try muxer.writeHeader() }
        #expect(empty.function == "avformat_write_header")
        #expect(empty.path == dir.file("order.mp4"))

        let stream = try muxer.addStream(for: encoder)
        #expect(stream == 0)
        try muxer.writeHeader()
        // Streams after the header, a second header, a stream that does not exist.
        #expect(throws: FFmpegError.self) { try muxer.addStream(for: encoder) }
        #expect(throws: FFmpegError.self) { try muxer.writeHeader() }
        let frame = try VideoFrame(width: 320, height: 240)
        try VideoEncoderTests.paint(frame, index: 0)
        frame.pts = 0
        try encoder.send(frame)
        try encoder.send(nil)
        #expect(try encoder.receivePacket(into: packet) == .packet)
        let wrong = try #require(throws: FFmpegError.self) { try muxer.write(packet, from: encoder.timeBase, stream: 3) }
        #expect(wrong.streamIndex == 3)
        #expect(wrong.function == "av_interleaved_write_frame")
        #expect(packet.size == 0)  // the refused packet was released, not leaked
    }
}
