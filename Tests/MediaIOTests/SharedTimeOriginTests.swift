import Foundation
import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

/// Issue 18: a file's tracks share one time origin, as in AVFoundation. A camera's
/// transport stream whose video starts 100 ms after its audio used to be read from each
/// track's own start: the video came out 100 ms early against its sound (a real Sony
/// 1080i file failed the corpus check at 26 dB for it).
@Suite struct SharedTimeOriginTests {
    @Test func aVideoStartingAfterItsAudioKeepsItsOffset() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("late-video.ts")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y",
                                          "-itsoffset", "0.1", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                                          "-f", "lavfi", "-i", "sine=frequency=440:duration=2.1",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", path])
        // ffprobe as the oracle: where each stream starts, and the file's start.
        let starts = try Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time",
                                                        "-of", "csv=p=0", path])
        var start: [String: Double] = [:]
        for line in starts.split(separator: "\n") {
            let fields = line.split(separator: ",")
            if fields.count == 2, let value = Double(fields[1]) { start[String(fields[0])] = value }
        }
        let videoStart = try #require(start["video"]), audioStart = try #require(start["audio"])
        let offset = videoStart - audioStart
        try #require(offset > 0.05 && offset < 0.5, "the fixture's video should start after its audio: \(starts)")

        let media = try AssetProbe().probe(path)
        let video = try #require(media.video)
        // The video's extent counts from the file's start: its 2 s after the offset.
        #expect(abs(video.timeRange.duration.seconds - (2 + offset)) < 0.01, "\(video.timeRange.duration.seconds) s, offset \(offset)")

        // Source time 1.1 s is the video's own 1.1 s − offset (before: its own 1.1 s).
        let reader = try VideoTrackReader(path: path, trackID: video.trackID)
        let first = try #require(try reader.frame(at: .zero)?.pts)
        let frame = try #require(try reader.frame(at: MediaTime(seconds: 1.1, preferredTimescale: 1000)))
        let pts = try #require(frame.pts)
        let expected = Int64(((1.1 - offset) * 25).rounded(.down)) * 3600   // 90 kHz, 25 fps
        #expect(pts - first == expected, "frame \((pts - first) / 3600) of the video shown at 1.1 s, offset \(offset)")
    }
}
