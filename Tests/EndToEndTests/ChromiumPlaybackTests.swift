import Foundation
import Testing
import TestSupport

/// `ChromiumPlayback`, the browser check smart render's outputs are played through, on
/// files whose fate is known: an H.264/AAC MP4 from the ffmpeg CLI plays to its end and
/// shows the frame at each seek; the same file with its media data damaged — zeroed over
/// most of the `mdat`, or cut in half — does not. A check that passed both would prove
/// nothing about the files it is given.
@Suite(.tags(.slow)) struct ChromiumPlaybackTests {
    static let fps = 30.0

    /// A 4 s 640x360 H.264 (a keyframe every second) + AAC clip, `moov` first.
    static func clip(in dir: TemporaryDirectory) async throws -> String {
        let path = dir.file("clip.mp4")
        try await Fixtures.generate(["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                     "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=4",
                                     "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p",
                                     "-c:a", "aac", "-movflags", "+faststart", "-t", "4"], output: path)
        return path
    }

    /// The byte range of the file's top-level `mdat` payload.
    static func mediaData(_ bytes: [UInt8]) throws -> Range<Int> {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if type == "mdat" { return offset + 8..<min(offset + size, bytes.count) }
            guard size >= 8 else { break }
            offset += size
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test func anEncodedClipPlaysToItsEndAndShowsTheFrameAtEachSeek() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let seeks = [0.5, 2.5, 3.9]
        let report = try await ChromiumPlayback.check(file: try await Self.clip(in: dir), seekTimes: seeks)
        #expect(report.playedCleanly, "\(report)")
        #expect(report.reachedEnded, "\(report)")
        #expect(report.errors.isEmpty, "\(report)")
        #expect(abs((report.duration ?? 0) - 4) < 0.05, "\(report)")
        try #require(report.seeks.count == seeks.count, "\(report)")
        for (seek, time) in zip(report.seeks, seeks) {
            #expect(seek.fired, "\(report)")
            // The frame shown is the one covering the seek time: at it or less than a frame before.
            let shown = try #require(seek.mediaTime, "\(report)")
            #expect(shown <= time + 0.001 && shown > time - 1 / Self.fps, "seek to \(time): \(report)")
        }
    }

    /// 60 % of the media data zeroed: the browser's decoder fails on the first packet in it
    /// (an audio or a video packet, whichever it reads first), a decode error, and the
    /// element is dead from then on.
    @Test func zeroedMediaDataIsADecodeErrorAndNeverEnds() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await Self.clip(in: dir))))
        let data = try Self.mediaData(bytes)
        let zeroed = data.lowerBound + data.count / 5..<data.lowerBound + data.count * 4 / 5
        bytes.replaceSubrange(zeroed, with: repeatElement(0, count: zeroed.count))
        let damaged = dir.file("zeroed.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))

        let report = try await ChromiumPlayback.check(file: damaged, seekTimes: [1, 3])
        #expect(!report.playedCleanly, "\(report)")
        #expect(!report.reachedEnded, "\(report)")
        #expect(report.errors.map(\.code) == [3], "MEDIA_ERR_DECODE expected: \(report)")
        #expect(report.seeks.allSatisfy { !$0.fired }, "\(report)")
    }

    /// The file cut in half (the `moov` first, so the browser knows every sample the
    /// missing half held): playback stops with a decode error where the data ends.
    @Test func aTruncatedFileIsADecodeErrorAndNeverEnds() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try await Self.clip(in: dir)))
        let damaged = dir.file("truncated.mp4")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: damaged))

        let report = try await ChromiumPlayback.check(file: damaged, seekTimes: [1])
        #expect(!report.playedCleanly, "\(report)")
        #expect(!report.reachedEnded, "\(report)")
        #expect(report.errors.map(\.code) == [3], "MEDIA_ERR_DECODE expected: \(report)")
        // The element reports its whole duration all the same: the moov says 4 s.
        #expect(abs((report.duration ?? 0) - 4) < 0.05, "\(report)")
    }
}
