import Foundation
import DropcutMediaIO
import DropcutTimeline

/// The output's audio stream as the encoding stage drives it: written up to a time as the
/// video goes, and finished after it.
protocol AudioOutput: AnyObject {
    /// Writes the audio up to output time `time`.
    func encode(until time: MediaTime, into muxer: Muxer) throws
    /// Writes the rest.
    func finish(into muxer: Muxer) throws
}

/// The output's audio copied from a source stream as it is (pass-through): no mixing,
/// no encoding.
final class AudioCopyStage: AudioOutput {
    let copier: StreamCopier

    init(copier: StreamCopier) {
        self.copier = copier
    }

    func encode(until time: MediaTime, into muxer: Muxer) throws {
        try copier.copy(until: time, into: muxer)
    }

    func finish(into muxer: Muxer) throws {
        try copier.copy(until: nil, into: muxer)
    }
}
