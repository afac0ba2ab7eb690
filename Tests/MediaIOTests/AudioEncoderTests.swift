import Foundation
import Testing
import DropcutMediaIO
import DropcutTimeline
import TestSupport

/// `AudioEncoder` (FFmpeg's AAC): frame size and clock, a stereo sine that survives
/// encoding (frequency and level, decoded by the ffmpeg CLI), and refused frames.
@Suite struct AudioEncoderTests {
    static let frequency = 440.0
    /// Left and right amplitudes differ by 6 dB so a channel swap or downmix shows.
    static let amplitudes: [Double] = [0.5, 0.25]

    /// Sample `index` of channel `channel` of the test sine.
    static func sample(_ index: Int, channel: Int, sampleRate: Int = 48_000) -> Float {
        Float(amplitudes[channel] * sin(2 * .pi * frequency * Double(index) / Double(sampleRate)))
    }

    /// Fills `frame` with `count` samples of the sine starting at sample `start`.
    static func fill(_ frame: AudioFrame, from start: Int, count: Int) throws {
        try frame.makeWritable()  // the encoder may still hold the previous block
        frame.sampleCount = count
        for channel in 0..<frame.channels {
            frame.withChannel(channel) { samples in
                for i in 0..<count { samples[i] = sample(start + i, channel: channel, sampleRate: frame.sampleRate) }
            }
        }
        frame.pts = Int64(start)
    }

    @Test func aacTakesBlocksOf1024SamplesOnASampleClock() throws {
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(sampleRate: 48_000, channels: 2, bitrate: 128_000),
                                       globalHeader: true)
        #expect(encoder.frameSize == 1024)
        #expect(encoder.timeBase == MediaTime(value: 1, timescale: 48_000))

        // Three full blocks and a short last one, then the flush: every sample comes out.
        let frame = try AudioFrame(channels: 2, sampleRate: 48_000, capacity: encoder.frameSize)
        let packet = try Packet()
        var durations: Int64 = 0, packets = 0
        func collect() throws -> EncoderResult {
            while true {
                let result = try encoder.receivePacket(into: packet)
                guard result == .packet else { return result }
                packets += 1
                durations += packet.duration
            }
        }
        for (start, count) in [(0, 1024), (1024, 1024), (2048, 1024), (3072, 500)] {
            try Self.fill(frame, from: start, count: count)
            try encoder.send(frame)
            #expect(try collect() == .needsInput)
        }
        try encoder.send(nil)
        #expect(try collect() == .endOfStream)
        #expect(packets >= 4)
        #expect(durations >= 3572)  // the input, plus the encoder's priming
    }

    @Test func sineSurvivesAtItsFrequencyAndLevel() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("sine.mp4"), raw = dir.file("decoded.f32")
        let sampleRate = 48_000
        try MuxerTests.render(to: path, audio: AudioEncoderSettings(sampleRate: sampleRate, channels: 2, bitrate: 160_000),
                              samples: 2 * sampleRate)

        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path,
                                          "-f", "f32le", "-c:a", "pcm_f32le", raw])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        let interleaved = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let frames = interleaved.count / 2
        print("AAC decoded \(frames) samples per channel (input \(2 * sampleRate))")
        // The edit list hides the encoder's priming: the length is the input's, within a block.
        #expect(abs(frames - 2 * sampleRate) <= 1024, "\(frames) samples")

        // Measure the middle, away from the encoder's start-up and the padded last block.
        let window = sampleRate / 4..<(frames - sampleRate / 4)
        try #require(window.count > sampleRate)
        var levels: [Double] = []
        for channel in 0..<2 {
            let signal = window.map { Double(interleaved[$0 * 2 + channel]) }
            let measured = try #require(Self.frequency(of: signal, sampleRate: sampleRate))
            print("AAC channel \(channel): \(measured) Hz")
            #expect(abs(measured - Self.frequency) <= Self.frequency * 0.01, "channel \(channel): \(measured) Hz")

            let rms = (signal.reduce(0) { $0 + $1 * $1 } / Double(signal.count)).squareRoot()
            let inputRMS = Self.amplitudes[channel] / 2.0.squareRoot()
            let difference = 20 * log10(rms / inputRMS)
            print("AAC channel \(channel): RMS \(rms), input \(inputRMS), \(difference) dB")
            #expect(abs(difference) <= 1, "channel \(channel): \(difference) dB")
            levels.append(rms)
        }
        // Left stays 6 dB above right: the channels were neither swapped nor mixed.
        #expect(abs(20 * log10(levels[0] / levels[1]) - 6.02) <= 1)
    }

    /// The frequency of a sine from its upward zero crossings (interpolated between
    /// samples): crossings counted over the time from the first to the last.
    static func frequency(of signal: [Double], sampleRate: Int) -> Double? {
        var crossings: [Double] = []
        for i in 1..<signal.count where signal[i - 1] < 0 && signal[i] >= 0 {
            crossings.append(Double(i - 1) + -signal[i - 1] / (signal[i] - signal[i - 1]))
        }
        guard let first = crossings.first, let last = crossings.last, last > first else { return nil }
        return Double(crossings.count - 1) / ((last - first) / Double(sampleRate))
    }

    @Test func framesThatBreakTheBlockContractAreRefused() throws {
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(sampleRate: 48_000, channels: 2, bitrate: 128_000),
                                       globalHeader: false)
        let tooLong = try AudioFrame(channels: 2, sampleRate: 48_000, capacity: 2048)
        try Self.fill(tooLong, from: 0, count: 2048)
        let mono = try AudioFrame(channels: 1, sampleRate: 48_000, capacity: 1024)
        try Self.fill(mono, from: 0, count: 1024)
        let otherRate = try AudioFrame(channels: 2, sampleRate: 44_100, capacity: 1024)
        try Self.fill(otherRate, from: 0, count: 1024)
        let noPTS = try AudioFrame(channels: 2, sampleRate: 48_000, capacity: 1024)
        for frame in [tooLong, mono, otherRate, noPTS] {
            let error = try #require(throws: FFmpegError.self) { try encoder.send(frame) }
            #expect(error.code == -EINVAL)
            #expect(error.function == "avcodec_send_frame")
        }

        // A short block ends the stream: another block after it would leave a gap.
        let block = try AudioFrame(channels: 2, sampleRate: 48_000, capacity: 1024)
        try Self.fill(block, from: 0, count: 1000)
        try encoder.send(block)
        let packet = try Packet()
        while try encoder.receivePacket(into: packet) == .packet {}
        try Self.fill(block, from: 1000, count: 1024)
        let error = try #require(throws: FFmpegError.self) { try encoder.send(block) }
        #expect(error.code == -EINVAL)
    }

    @Test(arguments: [(sampleRate: 12_345, channels: 2), (sampleRate: 48_000, channels: 0)])
    func settingsAACCannotCodeAreRefused(_ bad: (sampleRate: Int, channels: Int)) throws {
        let error = try #require(throws: FFmpegError.self) {
            _ = try AudioEncoder(settings: AudioEncoderSettings(sampleRate: bad.sampleRate, channels: bad.channels),
                                 globalHeader: true)
        }
        #expect(error.function == "avcodec_open2")
        #expect(error.code < 0)
    }
}
