import Foundation
import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

/// Issue 18: which of a file's streams a composition takes. Of each kind the first the
/// container marks as default among those FFmpeg can decode, else the first decodable;
/// cover pictures are not video; data and timecode streams are never used.
@Suite struct UsedStreamTests {
    @Test func theDefaultAudioTrackIsUsedNotTheFirst() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("two-tracks.mp4")
        // Stream 1: a 440 Hz commentary track (not default); stream 2: the default.
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                                          "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                                          "-f", "lavfi", "-i", "sine=frequency=880:duration=1",
                                          "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                          "-disposition:a:0", "0", "-disposition:a:1", "default", path])
        let media = try AssetProbe().probe(path)
        #expect(media.audio?.trackID == TrackID(3))
        #expect(media.video?.trackID == TrackID(1))
    }
}
