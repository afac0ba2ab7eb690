import DropcutMediaIO
import DropcutTimeline

/// A video stream made of one H.264 source's groups of pictures, copied packet for packet,
/// and pieces encoded in between (smart rendering: `SmartRenderPlan`). Whoever sets it
/// (`PassThrough` in Pipeline) has checked that the copied frames are what the output
/// shows, and that the encoded pieces can sit beside them: the source's profile, level
/// and entropy coder, 8-bit 4:2:0, progressive, on one constant frame grid, with a
/// parameter-set id its own sets do not use.
///
/// The output's pictures are timed on the grid (a constant-rate source stays constant
/// rate across every join: one `stts` entry; a source's frames left out stay out where
/// copied), each decode time the presentation time `reorderDepth` pictures earlier.
public struct VideoSplice: Sendable, Hashable {
    /// The source copied from.
    public var asset: String
    /// AVFoundation-style: stream index + 1.
    public var trackID: TrackID
    /// The pieces, in output frames; source frames count from `sourceStart`.
    public var plan: SmartRenderPlan
    /// Source time (as the composition counts it) of source frame 0.
    public var sourceStart: MediaTime
    /// The grid's frame: the output's and the source's.
    public var frameDuration: MediaTime
    /// The source's frames no picture is on (ascending): a variable rate's frames left out
    /// (`SourcePictureIndex.missingFrames`). Where copied, they stay out: the picture
    /// before is shown longer, as in the source.
    package var missingFrames: [Int]
    /// How the encoded pieces are encoded to sit beside the copied ones: the source's
    /// profile, level and entropy coder, a parameter-set id of their own.
    package var encoding: VideoEncoderSettings.SpliceMatch
    /// The most frames any copied picture is decoded ahead of its presentation.
    public var sourceReorderDepth: Int
    /// The colour every picture of the output states, copied or encoded: the source's own
    /// (Display P3, full range, BT.601 as it says), or `statedColour`. The encoded pieces
    /// are composited as every output is, then converted into it (matrix and range) and
    /// encoded saying it, so one picture and the next mean the same across a join.
    public var colour: ColorDescription
    /// The colour the output states for a source that states none (what players guess
    /// for it): the copied parameter sets are rewritten to say it. nil: the source's own.
    public var statedColour: ColorDescription?

    /// The source's display matrix, which the output keeps (`orientation: keep`; identity:
    /// none). The output's pictures are stored as the source's are, the encoded pieces
    /// turned back from the upright canvas, so players show every one upright.
    public var orientation: AffineTransform

    package init(asset: String, trackID: TrackID, plan: SmartRenderPlan, sourceStart: MediaTime, frameDuration: MediaTime,
                 encoding: VideoEncoderSettings.SpliceMatch,
                 sourceReorderDepth: Int, colour: ColorDescription = .bt709, statedColour: ColorDescription? = nil,
                 orientation: AffineTransform = .identity, missingFrames: [Int] = []) {
        self.missingFrames = missingFrames
        self.orientation = orientation
        self.colour = colour
        self.statedColour = statedColour
        self.asset = asset
        self.trackID = trackID
        self.plan = plan
        self.sourceStart = sourceStart
        self.frameDuration = frameDuration
        self.encoding = encoding
        self.sourceReorderDepth = sourceReorderDepth
    }
}
