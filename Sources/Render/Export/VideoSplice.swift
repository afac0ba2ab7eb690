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
/// rate across every join: one `stts` entry), decode times a uniform sequence
/// `reorderDepth` frames behind.
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
    /// How the encoded pieces are encoded to sit beside the copied ones: the source's
    /// profile, level and entropy coder, a parameter-set id of their own.
    package var encoding: VideoEncoderSettings.SpliceMatch
    /// The most frames any copied picture is decoded ahead of its presentation.
    public var sourceReorderDepth: Int
    /// The colour the output states, for a source that states none (what players guess
    /// for it): the copied parameter sets are rewritten to say it, the encoded pieces say
    /// it too. nil: the source's own (BT.709).
    public var statedColour: ColorDescription?

    package init(asset: String, trackID: TrackID, plan: SmartRenderPlan, sourceStart: MediaTime, frameDuration: MediaTime,
                 encoding: VideoEncoderSettings.SpliceMatch,
                sourceReorderDepth: Int, statedColour: ColorDescription? = nil) {
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
