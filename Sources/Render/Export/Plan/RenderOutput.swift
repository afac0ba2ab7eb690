import Foundation
import DropcutMediaIO
import DropcutTimeline

/// One thing a render makes of a composition: a movie file, an HLS ladder in a folder, or
/// the pictures of a few frames (a poster, a preview's frames) handed to their writer.
/// What it shows and how it encodes is `session`'s (its composition, video composition,
/// audio mix, overlays and settings); where it goes is `destination`'s. `RenderPlan`
/// decides which outputs share a decode, `RenderGraph` makes them.
package struct RenderOutput: Sendable {
    package enum Destination: Sendable {
        /// A movie (`.mp4`, `.mov`, `.m4v`): encoded, or its picture copied when the
        /// session's settings say (`ExportSettings.videoCopy`).
        case file(path: String)
        /// An HLS ladder written into `folder` (which exists and is empty), its master
        /// playlist named `masterName`: every rung encoded, never copied.
        case ladder(LadderDestination)
        /// The frames the tap lists, composited at the session's size, handed to its writer.
        case pictures(PictureTap)
    }

    /// Where a ladder goes and what its rungs are.
    package struct LadderDestination: Sendable {
        package var folder: String
        package var masterName: String
        /// The rungs, tallest first; none taller than the render size.
        package var rungs: [PixelSize]
        /// The segments' target length.
        package var segment: MediaTime

        package init(folder: String, masterName: String, rungs: [PixelSize], segment: MediaTime) {
            self.folder = folder
            self.masterName = masterName
            self.rungs = rungs
            self.segment = segment
        }

        /// Frames between keyframes for a render on the grid `frameDuration`: the segment
        /// length to the nearest whole frame, at least 1.
        package func keyframeInterval(frameDuration: MediaTime) -> Int {
            let frames = segment.seconds / frameDuration.seconds
            guard frames.isFinite else { return 1 }
            return Swift.max(1, Int(Swift.min(frames.rounded(), Double(Int32.max))))
        }
    }

    package let session: ExportSession
    package let destination: Destination

    /// `session` written to `destination`; a ladder's session never copies a stream (a
    /// ladder is always encoded), a picture's is the tap's own.
    package init(session: ExportSession, destination: Destination) {
        switch destination {
        case .file:
            self.session = session
        case .ladder:
            self.session = session.encodingEverything
        case let .pictures(tap):
            self.session = tap.session
        }
        self.destination = destination
    }

    /// How many video encoders the output runs: a file one (none when it copies its
    /// picture), a ladder one per rung, pictures none.
    package var encoders: Int {
        switch destination {
        case .file: session.settings.videoCopy == nil ? 1 : 0  // a splice encodes its pieces one by one, in its own group
        case let .ladder(ladder): ladder.rungs.count
        case .pictures: 0
        }
    }

    /// Whether the output is a stream of pictures (a file or a ladder) rather than a few
    /// frames.
    var isEncoded: Bool {
        if case .pictures = destination { return false }
        return true
    }

    /// Whether it copies a stream (a file with pass-through).
    var copies: Bool {
        session.settings.copiesVideo || session.settings.audioCopy != nil
    }

    /// The same output with every stream encoded: what a copy that fails becomes.
    var encodingEverything: RenderOutput {
        RenderOutput(session: session.encodingEverything, destination: destination)
    }

    /// The output's checks: the composition's, and a ladder's rungs (even, none larger
    /// than the render size).
    func validate() throws {
        try session.validate()
        guard case let .ladder(ladder) = destination else { return }
        let renderSize = session.videoComposition.renderSize
        guard !ladder.rungs.isEmpty,
              ladder.rungs.allSatisfy({ $0.isEven && $0.width <= renderSize.width && $0.height <= renderSize.height }) else {
            throw ExportError.invalidComposition(["HLS rungs \(ladder.rungs) must be even and no larger than the render size \(renderSize)"])
        }
    }
}
