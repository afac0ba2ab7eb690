import DropcutTimeline

/// A validated recipe (docs/recipes.md, `version: 1`): what to make of a dropped
/// clip. Every field has its default filled in; asset paths are resolved and checked.
/// Fields that can only be checked against probed media keep their source location, so
/// the builder's errors point into the recipe too.
public struct Recipe: Sendable, Hashable {
    public var version: Int = 1
    /// The recipe's name for `{recipe}`: its file's stem.
    public var name: String
    public var output = Output()
    public var orientation: Orientation = .auto
    /// Default: one clip, the dropped file, untrimmed.
    public var clips: [Clip] = [Clip()]
    public var transition = Transition()
    public var overlays: [Overlay] = []
    public var music: Music?
    /// `captions:` — subtitles burnt in; nil: only a clip's `.srt`/`.vtt` sidecar, with
    /// the default style, when one was dropped with it.
    public var captions: Captions?
    /// `audio:` — sound files placed on the output timeline (voice-overs, music, effects).
    public var audio: [AudioItem] = []
    public var originalAudio: OriginalAudio = .keep
    /// `outputs:` — the deliverables, each `output` merged with the entry's keys; empty:
    /// the one file `output` describes.
    public var outputs: [Deliverable] = []

    public init(name: String) {
        self.name = name
    }

    /// `output:` — the file a recipe makes: its name, size, fit, rate, dynamic range, codecs and captions.
    public struct Output: Sendable, Hashable {
        public var filename = try! FilenameTemplate("{name}.dropcut.mp4")
        /// Nil: the oriented size of the first clip (fitted into `sizeBound` when set).
        public var size: PixelSize?
        /// `size: 1080p` or `size: { max: 1920x1080 }`: the first clip's oriented size,
        /// fitted into this bound (never upscaled). Only when `size` is nil.
        public var sizeBound: OutputSizeBound?
        public var fit: ContentMode = .fit
        /// `smart:` — what `fit: smart` follows and how calmly.
        public var smart = SmartFit()
        /// Frames per second; nil: the highest source rate, capped at 60.
        public var fps: MediaTime?
        /// Interlaced sources: deinterlaced at the field rate, or left woven.
        public var deinterlace: Deinterlace = .auto
        /// SDR, HDR (HLG in HEVC Main 10), or HDR only when a clip is.
        public var dynamicRange: DynamicRange = .sdr
        public var video = VideoCodec()
        public var audio = AudioCodec()
        /// What a video does with the captions, when there are any.
        public var captions: CaptionMode = .burn
    }

    /// `output.captions`.
    public enum CaptionMode: String, Sendable, Hashable, CaseIterable {
        /// Drawn into the picture.
        case burn
        /// A subtitle stream the viewer can turn on (`mov_text`), the picture left clean.
        case soft
        /// Neither (a `.vtt` deliverable can still carry them).
        case none
    }

    /// `output.deinterlace`.
    public enum Deinterlace: String, Sendable, Hashable, CaseIterable {
        /// Sources whose streams say they are interlaced — or, where a stream does not
        /// say, whose first frame is flagged interlaced (DV) — are deinterlaced, each
        /// field becoming a frame (`fps: source` is then the field rate: 1080i50 gives
        /// 50 fps).
        case auto
        /// Frames are shown as decoded, both fields woven together.
        case off
    }

    /// `output.dynamic_range`.
    public enum DynamicRange: String, Sendable, Hashable, CaseIterable {
        /// BT.709 SDR, 8-bit: HLG and PQ clips are tone mapped.
        case sdr
        /// BT.2100 HLG in HEVC Main 10: HLG clips kept as they are, PQ clips converted to
        /// HLG, SDR clips mapped up (their white at HLG 75 %).
        case hdr
        /// `hdr` when any clip's video is HLG or PQ, else `sdr`.
        case source
    }

    /// `output.video` — the video codec and its quality knobs.
    public struct VideoCodec: Sendable, Hashable {
        public typealias Codec = VideoCodecID
        /// H.264 unless the recipe says; an HDR output without `codec` is HEVC, and so is
        /// one whose video is an HEVC clip copied whole (`Production`).
        public var codec: Codec = .h264
        /// True when the recipe names the codec (an HDR output then needs it to be HEVC).
        public var codecIsExplicit = false
        public var crf: Int = EncodingDefaults.crf
        public var preset: String = EncodingDefaults.preset
        /// `auto`: streams the output would not change are copied, not re-encoded.
        public var reencode: Reencode = .auto
    }

    /// `output.video.reencode`.
    public enum Reencode: String, Sendable, Hashable, CaseIterable {
        /// Copy a stream's packets when the output changes nothing of it (pass-through).
        case auto
        /// Decode and encode every stream, whatever it needs.
        case always
    }

    /// `output.audio` — the audio codec, its bit rate and the loudness target.
    public struct AudioCodec: Sendable, Hashable {
        /// The audio codecs an output can have: AAC.
        public enum Codec: String, Sendable, Hashable, CaseIterable { case aac }
        public var codec: Codec = .aac
        /// Bits per second.
        public var bitrate: Int = 160_000
        /// `loudness: -16LUFS` — the final mix brought to this integrated loudness
        /// (EBU R128, measured by dropcut); nil leaves the level as mixed.
        public var loudness: Double?
    }

    /// `orientation:` — from the clip's display matrix, or a fixed rotation of its pixels.
    public enum Orientation: Sendable, Hashable {
        /// From the clip's display matrix.
        case auto
        /// As `auto`, except where the clip's video is copied whole or spliced (smart
        /// render): the output keeps the display matrix (players turn the stored pictures,
        /// as AVFoundation's passthrough keeps `preferredTransform`; encoded pieces are
        /// stored turned back) instead of being encoded upright.
        case keep
        /// Rotate the stored pixels clockwise by 0, 90, 180 or 270 degrees, whatever the
        /// display matrix says.
        case degrees(Int)
    }

    /// One entry of `clips:` — a source file, trimmed, sped up or slowed, its volume, transform or Ken Burns move.
    public struct Clip: Sendable, Hashable {
        /// `{input}` (the dropped clip) or a path resolved against the asset folders.
        public var source: String = "{input}"
        public var trim: ClosedTimeRange?
        public var speed: [SpeedRange] = []
        public var audio: AudioMode = .preservePitch
        /// `frames: repeat | blend` — how slowed video shows source frames between their
        /// timestamps.
        public var frames: FrameSampling = .repeat
        /// `volume: -3dB` — the clip's own sound, before the mix.
        public var volume = Gain(decibels: 0)
        /// `transform:` keyframes (at least one when given), `at` increasing.
        public var transform: [TransformKeyframe] = []
        /// `ken_burns: { from, to }`.
        public var kenBurns: KenBurns?
        /// `duration: 4` — how long a still image (a PNG or JPEG source) is shown; required
        /// for stills, an error on a video (whose length comes from `trim`).
        public var duration: MediaTime?
        /// Where `duration` is written (errors about it point there).
        public var durationLocation: SourceLocation?
        public var location: SourceLocation?
        public init() {}
    }

    /// `[start, end]` in a recipe, where `end` may be the word `end`.
    public struct ClosedTimeRange: Sendable, Hashable {
        public var start: RecipeTime
        public var end: RecipeTime
        public var location: SourceLocation
    }

    /// Slow or fast motion over a range of source time.
    public struct SpeedRange: Sendable, Hashable {
        public var range: ClosedTimeRange
        /// Exact rate: 0.25 is 1/4 (4x slow motion).
        public var rate: MediaTime
        public var location: SourceLocation
    }

    /// `clips[].audio` — how a clip's sound follows its speed: pitch kept, pitch shifted with the speed, or muted.
    public enum AudioMode: String, Sendable, Hashable, CaseIterable {
        case preservePitch = "preserve-pitch"
        case varispeed
        case mute
    }

    /// `transition:` — how one clip gives way to the next, and for how long.
    public struct Transition: Sendable, Hashable {
        /// The transitions: a cut, a crossfade, a push or a wipe.
        public enum Kind: String, Sendable, Hashable, CaseIterable { case cut, crossfade, push, wipe }
        public var kind: Kind = .cut
        public var duration: MediaTime = .zero
        public var location: SourceLocation?
    }

    /// One entry of `overlays:` — a picture, a picture sequence, a text or a group drawn over the video.
    public struct Overlay: Sendable, Hashable {
        /// What the overlay draws.
        public enum Content: Sendable, Hashable {
            /// A resolved image path.
            case image(String)
            /// Resolved paths of an image sequence (`frames: logo_%02d.png`) and its rate.
            case imageSequence([String], framesPerSecond: Double)
            case text(template: FilenameTemplate, font: String, size: Length, color: Color)
            /// `group: [ ...overlays... ]` with `bounds: [w, h]` (nil: the output's size):
            /// overlays placed in the group's box, moved, turned and faded with it.
            case group([Overlay], width: Length?, height: Length?)
        }
        /// `move: { from: top-left, to: bottom-right, duration: 10 }`: the overlay glides
        /// from one anchor to another (from the start of its `during` range).
        public struct Move: Sendable, Hashable {
            public var from: Anchor
            public var to: Anchor
            /// Nil: the whole time the overlay is shown.
            public var duration: MediaTime?
        }
        /// `animate: [ { property: rotate, keyframes: [ { at: 0, value: 0 }, { at: 2, value: 360,
        /// timing: ease-in-out } ], repeat: forever, autoreverse: false } ]`: one property's
        /// keyframes, times from the start of the overlay's `during`.
        public struct Animation: Sendable, Hashable {
            /// The property an animation changes.
            public enum Property: String, Sendable, Hashable, CaseIterable {
                case opacity, position, scale, rotate, spin
            }
            /// A number (opacity, scale, degrees) or a unit point (position).
            public enum Value: Sendable, Hashable {
                case number(Double)
                case point(DropcutTimeline.Point)
            }
            /// The property's value at one time of the animation.
            public struct Keyframe: Sendable, Hashable {
                public var at: MediaTime
                public var value: Value
                /// How the value gets here from the keyframe before.
                public var timing: TimingFunction
            }
            public var property: Property
            public var keyframes: [Keyframe]
            /// Nil: forever.
            public var repeatCount: Int? = 1
            public var autoreverse = false
            public var location: SourceLocation
        }
        /// `spin: { axis: y, degrees: 45, perspective: 500 }`: a turn in depth seen from
        /// `perspective` pixels away (CATransform3D's `m34 = -1/perspective`).
        public struct Spin: Sendable, Hashable {
            public var axis: ProjectiveTransform.Axis = .y
            public var degrees: Double = 0
            public var perspective: Double = 500
        }
        /// Text: `outline: { width: 2, color: "#000000" }` and `shadow: { offset: 2, color: "#00000099" }`.
        public struct Stroke: Sendable, Hashable {
            public var size: Length
            public var color: Color
        }
        public var content: Content
        public var anchor: Anchor = .bottomRight
        public var margin: Length = .percent(4)
        /// Images: the width on the output (height follows the aspect ratio).
        public var width: Length?
        public var opacity: Double = 1
        public var fadeIn: MediaTime = .zero
        public var fadeOut: MediaTime = .zero
        public var during: ClosedTimeRange?
        public var move: Move?
        /// Degrees clockwise about the overlay's centre.
        public var rotate: Double = 0
        public var animations: [Animation] = []
        public var spin: Spin?
        /// `bounce: scale` or `bounce: position`: a spring entrance (CASpringAnimation).
        public var bounce: Animation.Property?
        public var outline: Stroke?
        public var shadow: Stroke?
        public var location: SourceLocation
    }

    /// `music:` — a sound file laid under the whole output, looped, faded and ducked under the clips' sound.
    public struct Music: Sendable, Hashable {
        /// A resolved path.
        public var source: String
        public var gain = Gain(decibels: 0)
        /// Where in the music file the bed starts (and each loop restarts).
        public var offset: MediaTime = .zero
        public var loop = false
        public var fadeIn: MediaTime = .zero
        public var fadeOut: MediaTime = .zero
        public var duck: Duck?
        public var location: SourceLocation
    }

    /// Lower the music under the clip's own audio. Filled into the audio mix by the
    /// ducking analysis (music issue); the builder leaves the seam.
    public struct Duck: Sendable, Hashable {
        public var depth = Gain(decibels: -12)
        public var threshold = Gain(decibels: -30)
        public var attack = MediaTime(value: 2, timescale: 10)
        public var release = MediaTime(value: 8, timescale: 10)
        /// Pauses in the clip's sound shorter than this keep the music down (no pumping
        /// between words); half a second, where Audacity's Auto Duck allows one second.
        public var hold = MediaTime(value: 1, timescale: 2)
        /// Manual ducking: these ranges of output time instead of the analysis.
        public var windows: [ClosedTimeRange]?

        /// The defaults (what audio items duck a music bed without `duck:` by).
        public init() {}
    }

    /// One of `audio:`: a sound file placed at an output time, mixed over the clips' own
    /// sound or replacing it over its range (seed 001's recordings, music and sound
    /// effects), with its level, fades and a pitch shift.
    public struct AudioItem: Sendable, Hashable {
        /// `mode:` — what happens to the clips' own sound over the item's range.
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            /// Added on top (a sound effect).
            case mix
            /// The clips' own sound is silent over the item's range (a recording or music
            /// that replaces the original sound): that range is removed from the clips'
            /// audio tracks and an empty range inserted, as seed 001's composer does.
            case replace
        }
        /// A resolved path.
        public var source: String
        /// Output time where the item starts.
        public var at: MediaTime = .zero
        /// The part of the file used, in the file's time; nil: all of it.
        public var trim: ClosedTimeRange?
        public var volume = Gain(decibels: 0)
        public var fadeIn: MediaTime = .zero
        public var fadeOut: MediaTime = .zero
        public var mode: Mode = .mix
        /// Semitones, + up; the duration stays the same.
        public var pitch: Double = 0
        /// Whether the music bed ducks under the item; nil: under `replace` items only.
        public var duckMusic: Bool?
        public var location: SourceLocation
        /// Where `at` is written (errors about the item's time point there).
        public var atLocation: SourceLocation

        /// `duck_music`, its default filled in.
        public var ducksMusic: Bool { duckMusic ?? (mode == .replace) }
    }

    /// `original_audio:` — whether the clips' own sound is kept in the mix or muted.
    public enum OriginalAudio: String, Sendable, Hashable, CaseIterable { case keep, mute }
}
