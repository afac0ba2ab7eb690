import Foundation
import DropcutTimeline

/// What the builder makes of a recipe and its media: the composition, how its video is
/// drawn and its audio mixed, the overlay layers, and where the output goes.
public struct BuiltComposition: Sendable, Hashable {
    public var composition: Composition
    public var videoComposition: VideoComposition
    public var audioMix: AudioMix
    public var overlays: [OverlayLayer]
    public var output: Recipe.Output
    /// The output file name, template filled in.
    public var outputFilename: String
    /// The composition audio tracks carrying the clips' own sound, in clip order.
    public var clipAudioTrackIDs: [TrackID]
    /// The music bed, if the recipe has music — already ducked: its volumes in
    /// `audioMix` are final.
    package var music: MusicBed?
    /// The recipe's `audio:` items, as placed (their volumes and pitch are in `audioMix`).
    package var audioItems: [AudioItemPlacement] = []
    /// The clips' own sound level over time, when the music ducks under it (measured for
    /// the ducking; `plan --svg` draws it).
    public var clipLevels: SoundLevels?
    /// iPhone slow-motion sidecars (`.AAE`) whose regions were applied, for `plan` and
    /// the logs to mention.
    package var slowMotionSidecars: [SlowMotionSidecar] = []
    /// Where the captions came from (a subtitle file, or the clip's own stream), for
    /// `plan` and the logs; nil: no captions.
    public var captionSource: String?
    /// What was skipped reading the captions file (a cue setting the spec does not know, a
    /// block that is not a cue…), each kind once, as `file:line: what`: the logs and `plan`
    /// say them, the render goes on.
    public var captionWarnings: [String] = []
    /// The captions in output time, whatever `output.captions` does with them (a `.vtt`
    /// deliverable writes them); nil: none.
    public var captions: CaptionTrack?
    /// Every file the builder probed (clips and music), by the path the composition's
    /// source tracks name.
    public var media: [String: ProbedMedia] = [:]
    /// `fit: smart`: each clip's analysis and camera path, in clip order.
    public var reframings: [ClipReframing] = []
}
