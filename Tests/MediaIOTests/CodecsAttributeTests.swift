import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutMediaIO

/// `CodecsAttribute`: the RFC 6381 names of known parameter sets (the HLS authoring
/// spec's own examples), of what libx264 and libx265 really write, checked against
/// ffprobe's profile and level, and never a trap on any bytes.
@Suite struct CodecsAttributeTests {
    @Test func knownParameterSets() {
        // avcC: High (100), no constraints, level 4.0.
        #expect(CodecsAttribute.avc(parameterSets: [1, 0x64, 0x00, 0x28, 0xFF]) == "avc1.640028")
        // Annex B with a four-byte start code: Main (77), constraint_set1, level 3.1.
        #expect(CodecsAttribute.avc(parameterSets: [0, 0, 0, 1, 0x67, 0x4D, 0x40, 0x1F, 0xAA, 0, 0, 1, 0x68, 0xEE]) == "avc1.4d401f")
        // An SPS after a PPS, and an emulation prevention byte inside it.
        #expect(CodecsAttribute.avc(parameterSets: [0, 0, 1, 0x68, 0xEE, 0, 0, 1, 0x67, 0x42, 0x00, 0x00, 0x03, 0x0A]) == "avc1.420000")
        // hvcC: Main (1), compatible with Main and Main 10, main tier, level 3.1, progressive source.
        let main: [UInt8] = [1, 0x01, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 93]
        #expect(CodecsAttribute.hevc(parameterSets: main + [0xF0]) == "hvc1.1.6.L93.B0")
        // Main 10, high tier, level 4.1.
        let main10: [UInt8] = [1, 0x22, 0x20, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 123]
        #expect(CodecsAttribute.hevc(parameterSets: main10) == "hvc1.2.4.H123.B0")
        // No parameter sets at all.
        #expect(CodecsAttribute.avc(parameterSets: []) == nil)
        #expect(CodecsAttribute.hevc(parameterSets: [0, 0, 1, 0x40, 0x01]) == nil)
    }

    /// What the encoders write, named as ffprobe reads the stream back: profile and level.
    @Test(arguments: [VideoCodecID.h264, .hevc])
    func theEncodersParameterSetsNameTheirStream(codec: VideoCodecID) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out.mp4")
        let muxer = try Muxer(path: path)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(codec: codec, size: PixelSize(width: 640, height: 360),
                                                                      frameDuration: MediaTime(value: 1, timescale: 30)),
                                       globalHeader: muxer.needsGlobalHeader)
        let stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let frame = try VideoFrame(width: 640, height: 360)
        for index in 0..<3 {
            try frame.makeWritable()
            frame.pts = Int64(index)
            try encoder.send(frame)
            try muxer.drain(encoder, into: stream)
        }
        try encoder.send(nil)
        try muxer.drain(encoder, into: stream)
        try muxer.finish()
        let probed = try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level",
                                                        "-of", "default=nw=1", path])
        let level = Int(probed.split(separator: "\n").first { $0.hasPrefix("level=") }?.dropFirst(6) ?? "") ?? -1
        let name = try #require(encoder.codecsAttribute)
        switch codec {
        case .h264:
            #expect(probed.contains("profile=High"), "\(probed)")
            #expect(name == String(format: "avc1.6400%02x", level), "\(name) \(probed)")
        case .hevc:
            #expect(probed.contains("profile=Main"), "\(probed)")
            #expect(name.hasPrefix("hvc1.1.6.L\(level).") || name == "hvc1.1.6.L\(level)", "\(name) \(probed)")
        }
    }

    /// Any bytes: a name or nil, never a trap; the Annex B walk always ends.
    @Test func randomAndMutatedBytesNeverTrap() {
        var rng = SystemRandomNumberGenerator()
        let seeds: [[UInt8]] = [[0, 0, 0, 1, 0x67, 0x64, 0, 0x1F, 0xAC], [1, 0x01, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 93],
                                [0, 0, 1, 0x42, 0x01, 0x01, 0x01, 0x60, 0, 0, 3, 0, 0xB0, 0, 0, 3, 0, 0, 0x5D]]
        var named = 0
        for round in 0..<5000 {
            var bytes = seeds[round % seeds.count]
            if round % 4 == 0 {
                bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            }
            if CodecsAttribute.avc(parameterSets: bytes) != nil { named += 1 }
            if CodecsAttribute.hevc(parameterSets: bytes) != nil { named += 1 }
        }
        #expect(named > 100)
    }
}
