import Foundation
import DropcutMediaIO
import DropcutTimeline

/// What a finished render must hold before anyone calls it done (a `dropcut render` that
/// exits 0, a daemon job that archives its original): a video stream, an audio stream
/// when the composition has audio, each lasting as long as the composition within a
/// frame. Read back from the written file with the same probe as any input — an export
/// that stopped early, a muxer that wrote no streams, a source whose duration was wrong,
/// all fail here rather than pass off a short or empty file.
public enum OutputCheck {
    /// A written output that is not what the composition describes.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): the rendered output is not complete: \(reason)" }
    }

    /// Checks the file at `path` against `composition`, drawn at `frameDuration`.
    public static func verify(_ path: String, composition: Composition, frameDuration: MediaTime) throws {
        let media = try AssetProbe().probe(path)
        let expected = composition.duration
        let frame = frameDuration.seconds.isFinite && frameDuration.seconds > 0 ? frameDuration.seconds : 1.0 / 30
        guard let video = media.video else { throw Failure(path: path, reason: "it has no video stream") }
        let videoSeconds = video.timeRange.duration.seconds
        guard abs(videoSeconds - expected.seconds) <= frame + 0.001 else {
            throw Failure(path: path, reason: String(format: "its video lasts %.3f s, the composition %.3f s", videoSeconds, expected.seconds))
        }
        guard !composition.tracks(of: .audio).isEmpty else { return }
        guard let audio = media.audio else {
            throw Failure(path: path, reason: "it has no audio stream although the composition has audio")
        }
        // An audio encoder works in frames of samples (AAC: 1024): its last one may
        // reach a little past the video's end.
        let audioSeconds = audio.timeRange.duration.seconds
        let slack = max(frame, 2048 / Double(max(audio.sampleRate, 8000)))
        guard abs(audioSeconds - expected.seconds) <= slack + 0.001 else {
            throw Failure(path: path, reason: String(format: "its audio lasts %.3f s, the composition %.3f s", audioSeconds, expected.seconds))
        }
    }
}
