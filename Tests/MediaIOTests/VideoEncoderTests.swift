import Foundation
import Testing
import DropcutMediaIO
import DropcutTimeline
import TestSupport

/// `VideoEncoder` on a generated test pattern: the send/receive loop, pixels that survive
/// libx264 (PSNR against the pattern, decoded by the ffmpeg CLI), HEVC, and bad settings.
@Suite struct VideoEncoderTests {
    static let size = PixelSize(width: 320, height: 240)
    static let frameDuration = MediaTime(value: 1, timescale: 30)

    /// Luma of the test pattern at (`x`, `y`) in frame `index`: a diagonal gradient over
    /// the video range 16...235, crossed by a 16-pixel vertical bar that moves 8 pixels per
    /// frame and contrasts with the gradient under it.
    static func luma(x: Int, y: Int, frame index: Int, size: PixelSize = size) -> UInt8 {
        let gradient = 16 + (x + y) * 219 / (size.width + size.height - 2)
        let barX = (index * 8) % size.width
        if x >= barX && x < barX + 16 { return gradient < 126 ? 235 : 16 }
        return UInt8(gradient)
    }

    /// The pattern's luma plane for frame `index`, `width × height` bytes, rows packed.
    static func lumaPlane(frame index: Int, size: PixelSize = size) -> [UInt8] {
        var plane = [UInt8](repeating: 0, count: size.width * size.height)
        for y in 0..<size.height {
            for x in 0..<size.width { plane[y * size.width + x] = luma(x: x, y: y, frame: index, size: size) }
        }
        return plane
    }

    /// Draws frame `index` of the pattern straight into `frame`'s planes (chroma neutral).
    static func paint(_ frame: VideoFrame, index: Int) throws {
        try frame.makeWritable()  // the encoder may still hold the previous picture
        frame.withPlane(0) { bytes, stride in
            for y in 0..<frame.planeHeight(0) {
                for x in 0..<frame.planeWidth(0) {
                    bytes[y * stride + x] = luma(x: x, y: y, frame: index, size: frame.size)
                }
            }
        }
        for plane in 1...2 {
            frame.withPlane(plane) { bytes, stride in
                for y in 0..<frame.planeHeight(plane) {
                    for x in 0..<frame.planeWidth(plane) { bytes[y * stride + x] = 128 }
                }
            }
        }
    }

    static func settings(_ codec: VideoEncoderSettings.Codec = .h264, crf: Int = 18, preset: String = "veryfast",
                         size: PixelSize = size) -> VideoEncoderSettings {
        VideoEncoderSettings(codec: codec, size: size, frameDuration: frameDuration, crf: crf, preset: preset)
    }

    /// PSNR in dB of `decoded` against `reference` (same length, 8-bit samples).
    static func psnr(_ decoded: ArraySlice<UInt8>, _ reference: [UInt8]) -> Double {
        var squared = 0.0
        for (a, b) in zip(decoded, reference) {
            let d = Double(a) - Double(b)
            squared += d * d
        }
        let mse = squared / Double(reference.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test func everyFrameComesBackAsOnePacketInFrameUnits() throws {
        let encoder = try VideoEncoder(settings: Self.settings(preset: "ultrafast"), globalHeader: false)
        #expect(encoder.timeBase == Self.frameDuration)
        let frame = try VideoFrame(width: 320, height: 240)
        let packet = try Packet()
        var packets: [(pts: Int64, dts: Int64, duration: Int64, key: Bool, size: Int)] = []
        func collect() throws -> EncoderResult {
            while true {
                let result = try encoder.receivePacket(into: packet)
                guard result == .packet else { return result }
                packets.append((try #require(packet.pts), try #require(packet.dts), packet.duration, packet.isKeyframe,
                                packet.size))
            }
        }
        for index in 0..<10 {
            try Self.paint(frame, index: index)
            frame.pts = Int64(index)
            try encoder.send(frame)
            #expect(try collect() == .needsInput)
        }
        try encoder.send(nil)
        try encoder.send(nil)  // a second flush is harmless
        #expect(try collect() == .endOfStream)
        #expect(try encoder.receivePacket(into: packet) == .endOfStream)

        #expect(packets.map(\.pts).sorted() == Array(0..<10))
        #expect(packets.allSatisfy { $0.duration == 1 && $0.size > 0 })
        #expect(packets.first?.key == true)
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $0.dts < $1.dts })

        // Frames after the flush are refused, not silently dropped.
        let late = try #require(throws: FFmpegError.self) { try encoder.send(frame) }
        #expect(late.function == "avcodec_send_frame")
        #expect(late.code == FFmpegError.endOfFile)
    }

    @Test func pixelsSurviveH264AtCRF18() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("video.mp4"), raw = dir.file("decoded.yuv")
        try MuxerTests.render(to: path, video: Self.settings(crf: 18, preset: "veryfast"), frames: 60)

        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path,
                                          "-f", "rawvideo", "-pix_fmt", "yuv420p", "-fps_mode", "passthrough", raw])
        let decoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let lumaBytes = 320 * 240, frameBytes = lumaBytes * 3 / 2
        try #require(decoded.count == 60 * frameBytes, "decoded \(decoded.count) bytes")

        var total = 0.0, worst = Double.infinity
        for index in 0..<60 {
            let start = index * frameBytes
            let value = Self.psnr(decoded[start..<start + lumaBytes], Self.lumaPlane(frame: index))
            total += value
            worst = min(worst, value)
            // Chroma was neutral grey and must stay so.
            let chroma = decoded[start + lumaBytes..<start + frameBytes]
            #expect(chroma.allSatisfy { abs(Int($0) - 128) <= 2 }, "frame \(index) chroma")
        }
        let mean = total / 60
        print("H.264 crf 18 luma PSNR: mean \(mean) dB, worst frame \(worst) dB")
        #expect(mean >= 38)
        #expect(worst >= 38)
        // The measure can tell frames apart: frame 30 against the pattern of frame 31 (bar
        // moved 8 px) is far worse, so frame order and timing are really being checked.
        let start = 30 * frameBytes
        let shifted = Self.psnr(decoded[start..<start + lumaBytes], Self.lumaPlane(frame: 31))
        #expect(shifted < worst - 10, "shifted \(shifted) dB")
    }

    @Test func hevcThroughLibx265DecodesBack() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("hevc.mp4")
        try MuxerTests.render(to: path, video: Self.settings(.hevc, crf: 28, preset: "ultrafast"), frames: 30)

        let streams = try MuxerTests.probe(path).streams
        try #require(streams.count == 1)
        #expect(streams[0]["codec_name"] as? String == "hevc")
        #expect(streams[0]["codec_tag_string"] as? String == "hvc1")
        #expect(streams[0]["pix_fmt"] as? String == "yuv420p")
        #expect(streams[0]["width"] as? Int == 320 && streams[0]["height"] as? Int == 240)
        #expect(streams[0]["nb_read_frames"] as? String == "30")
        #expect(MuxerTests.seconds(streams[0]["duration"]).map { abs($0 - 1.0) < 1e-6 } == true)
    }

    @Test(arguments: VideoEncoderSettings.Codec.allCases)
    func oddSizeForYUV420IsAnInvalidArgument(_ codec: VideoEncoderSettings.Codec) throws {
        for size in [PixelSize(width: 321, height: 240), PixelSize(width: 320, height: 239)] {
            let error = try #require(throws: FFmpegError.self) {
                _ = try VideoEncoder(settings: Self.settings(codec, size: size), globalHeader: true)
            }
            #expect(error.code == -EINVAL, "\(size)")
            #expect(error.function == "avcodec_open2")
            #expect(error.message == "Invalid argument")
        }
    }

    @Test(arguments: VideoEncoderSettings.Codec.allCases)
    func unknownPresetIsAnInvalidArgument(_ codec: VideoEncoderSettings.Codec) throws {
        let error = try #require(throws: FFmpegError.self) {
            _ = try VideoEncoder(settings: Self.settings(codec, preset: "warp-speed"), globalHeader: true)
        }
        #expect(error.code == -EINVAL)
        #expect(error.function == "avcodec_open2")
        #expect(error.description.contains("avcodec_open2: Invalid argument"))
    }

    @Test func zeroFrameDurationIsRefused() throws {
        var settings = Self.settings()
        settings.frameDuration = MediaTime(value: 0, timescale: 30)
        let error = try #require(throws: FFmpegError.self) { _ = try VideoEncoder(settings: settings, globalHeader: true) }
        #expect(error.function == "avcodec_open2")
        #expect(error.code == -EINVAL)
    }

    /// HLG (or PQ) in 8 bits is refused; in 10-bit HEVC it opens (Main 10).
    @Test func hdrNeedsTenBits() throws {
        var settings = Self.settings(.hevc)
        settings.color = .hlg
        let error = try #require(throws: FFmpegError.self) { _ = try VideoEncoder(settings: settings, globalHeader: true) }
        #expect(error.function == "avcodec_open2" && error.code == -EINVAL)
        settings.pixelFormat = .yuv420p10
        _ = try VideoEncoder(settings: settings, globalHeader: true)
    }

    @Test func framesThatDoNotMatchTheSettingsAreRefused() throws {
        let encoder = try VideoEncoder(settings: Self.settings(preset: "ultrafast"), globalHeader: false)
        let wrongSize = try VideoFrame(width: 160, height: 120)
        wrongSize.pts = 0
        let wrongFormat = try VideoFrame(width: 320, height: 240, pixelFormat: .rgba)
        wrongFormat.pts = 0
        let noPTS = try VideoFrame(width: 320, height: 240)
        for frame in [wrongSize, wrongFormat, noPTS] {
            let error = try #require(throws: FFmpegError.self) { try encoder.send(frame) }
            #expect(error.code == -EINVAL)
            #expect(error.function == "avcodec_send_frame")
        }
        // The encoder is still usable afterwards.
        let good = try VideoFrame(width: 320, height: 240)
        try Self.paint(good, index: 0)
        good.pts = 0
        try encoder.send(good)
        try encoder.send(nil)
        let packet = try Packet()
        var count = 0
        while try encoder.receivePacket(into: packet) == .packet { count += 1 }
        #expect(count == 1)
    }
}
