import Foundation
@testable import DropcutMediaIO
import Testing
import TestSupport

/// AudioTrackReader against the ffmpeg CLI's decode of the same files.
@Suite struct AudioTrackReaderTests {
    /// Reads `count` samples of channel 0 at `position`.
    static func read(_ reader: AudioTrackReader, at position: Int64, count: Int) throws -> [Float] {
        var out: [Float] = []
        try reader.withSamples(at: position, count: count) { channel, samples in
            if channel == 0 { out = Array(UnsafeBufferPointer(start: samples, count: count)) }
        }
        return out
    }

    static func maxDifference(_ a: [Float], _ b: ArraySlice<Float>) -> Float {
        zip(a, b).map { abs($0 - $1) }.max() ?? .infinity
    }

    @Test func samplesMatchTheCLIDecodeAtAnyPositionForwardAndBack() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 3, sampleRate: 48_000)
        let oracle = try DecodedMedia.monoSamples(of: clip, sampleRate: 48_000)
        let media = try AssetProbe().probe(clip)
        let reader = try AudioTrackReader(path: clip, trackID: try #require(media.audio).trackID, sampleRate: 48_000, channels: 1)
        // Forward in blocks, then a jump back (a seek), then far ahead (another seek).
        var position: Int64 = 0
        for _ in 0..<20 {
            let block = try Self.read(reader, at: position, count: 1024)
            #expect(Self.maxDifference(block, oracle[Int(position)..<Int(position) + 1024]) < 1e-5, "at \(position)")
            position += 1024
        }
        // After a seek the AAC decoder starts from fresh state: equal to -80 dB, not bit for
        // bit (a misplaced read would differ by the tone's whole amplitude, ~0.1).
        for start in [4_800, 100_000, 2_000, 130_000] {
            let block = try Self.read(reader, at: Int64(start), count: 777)
            #expect(Self.maxDifference(block, oracle[start..<start + 777]) < 1e-4, "at \(start)")
        }
    }

    @Test func outsideTheTrackIsSilence() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 1)
        let media = try AssetProbe().probe(clip)
        let reader = try AudioTrackReader(path: clip, trackID: try #require(media.audio).trackID, sampleRate: 48_000, channels: 2)
        let before = try Self.read(reader, at: -500, count: 1000)
        #expect(before[0..<500].allSatisfy { $0 == 0 })
        #expect(before[600..<1000].contains { $0 != 0 }, "the tone starts at sample 0")
        // (The last AAC frame may run up to 1024 samples past the second.)
        let after = try Self.read(reader, at: 48_000 + 1024, count: 1000)
        #expect(after.allSatisfy { $0 == 0 })
    }

    /// A composition longer than its audio reads silence past the end without going back
    /// to the file: once the stream has ended, nothing more is read.
    @Test func silencePastTheEndReadsNothingMore() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 1)
        let media = try AssetProbe().probe(clip)
        let reader = try AudioTrackReader(path: clip, trackID: try #require(media.audio).trackID, sampleRate: 48_000, channels: 1)
        _ = try Self.read(reader, at: 480_000, count: 1000)
        let read = reader.packetsRead
        for block in 1...100 {
            let samples = try Self.read(reader, at: 480_000 + Int64(block) * 48_000, count: 1000)
            #expect(samples.allSatisfy { $0 == 0 })
        }
        #expect(reader.packetsRead == read)
        // Going back still works.
        #expect(try Self.read(reader, at: 24_000, count: 1000).contains { $0 != 0 })
    }

    @Test func resamplingKeepsDurationAndPitch() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 2, sampleRate: 44_100)
        let media = try AssetProbe().probe(clip)
        let reader = try AudioTrackReader(path: clip, trackID: try #require(media.audio).trackID, sampleRate: 48_000, channels: 2)
        // 440 Hz at 48 kHz: count upward zero crossings over one second in the middle.
        var samples: [Float] = []
        var position: Int64 = 24_000
        while samples.count < 48_000 {
            samples += try Self.read(reader, at: position, count: 1000)
            position += 1000
        }
        var crossings = 0
        for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 { crossings += 1 }
        #expect(abs(crossings - 440) <= 1, "\(crossings) cycles in one second")
        // Two seconds of sound, then silence.
        let end = try Self.read(reader, at: 96_000 - 2_000, count: 4_000)
        #expect(end[0..<1_500].contains { $0 != 0 })
        #expect(end[2_500...].allSatisfy { $0 == 0 })
    }
}
