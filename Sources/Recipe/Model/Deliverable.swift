import DropcutTimeline

extension Recipe {
    /// One entry of `outputs:`: a file made from the same composition — a video (the
    /// default) or a poster — with `output:`'s keys merged with the entry's own, key by
    /// key (`video: { crf: 28 }` keeps the inherited codec and preset).
    public struct Deliverable: Sendable, Hashable {
        /// `output:` with the entry's keys applied (its `filename` checked for the kind).
        public var output: Output
        public var kind: Kind
        /// The entry's position (errors about it point there).
        public var location: SourceLocation

        public init(output: Output, kind: Kind, location: SourceLocation) {
            self.output = output
            self.kind = kind
            self.location = location
        }

        /// What the entry makes: a movie, a poster, a preview animation, an HLS ladder or a captions file.
        public enum Kind: Sendable, Hashable {
            /// A movie, encoded as `output.video` / `output.audio` say.
            case video
            /// One picture of the composition, composited as the video of the same size
            /// would show it.
            case poster(Poster)
            /// A short silent looping animation (animated WebP or GIF) of a stretch of the
            /// composition, scaled down.
            case preview(Preview)
            /// An adaptive HLS ladder: every rung encoded from the same composited frame,
            /// keyframes aligned, fMP4 segments in a folder named after the output.
            case hls(HLSLadder)
            /// The captions as a WebVTT file, timed to the output (a `.vtt` filename).
            case captions
        }

        /// The recipe a video or poster of this entry is built from: the recipe with this
        /// entry's output and no `outputs:` of its own.
        public func recipe(from recipe: Recipe) -> Recipe {
            var single = recipe
            single.output = output
            single.outputs = []
            return single
        }
    }

    /// `outputs[].poster`.
    public struct Poster: Sendable, Hashable {
        /// Which frame the poster shows: one at a given output time, or the best one measured.
        public enum Time: Sendable, Hashable {
            /// At this output time (on the frame showing then).
            case at(MediaTime)
            /// The sharpest well-exposed frame, measured (`PosterScore`).
            case best
        }

        public var time: Time
        /// From the filename's extension.
        public var format: PictureFormat
        /// Where `at` is written.
        public var location: SourceLocation

        public init(time: Time, format: PictureFormat, location: SourceLocation) {
            self.time = time
            self.format = format
            self.location = location
        }
    }

    /// `outputs[].hls`: the rungs of an adaptive HLS ladder and their segment length.
    public struct HLSLadder: Sendable, Hashable {
        /// The rungs' heights, tallest first, distinct and even; each rung keeps the
        /// output's shape. Rungs taller than the output are left out (never upscaled).
        public var heights: [Int]
        /// The target length of a segment; every rung has a keyframe at each multiple.
        public var segment: MediaTime
        /// Where the entry's `hls` is written.
        public var location: SourceLocation

        public init(heights: [Int], segment: MediaTime, location: SourceLocation) {
            self.heights = heights
            self.segment = segment
            self.location = location
        }
    }

    /// `outputs[].preview`.
    public struct Preview: Sendable, Hashable {
        /// By the filename's extension.
        public enum Format: String, Sendable, Hashable, CaseIterable {
            /// Animated WebP (libwebp, lossy, quality 75).
            case webp
            /// GIF: a fixed 256-colour palette, ordered dithering.
            case gif
        }

        /// Where it starts, in output time.
        public var from: MediaTime
        /// How long it lasts (cut at the output's end).
        public var duration: MediaTime
        /// Its width in pixels (even; never wider than the output); the height keeps the
        /// output's shape.
        public var width: Int
        /// Frames per second.
        public var fps: Int
        public var format: Format
        /// Where the entry's `preview` is written.
        public var location: SourceLocation

        public init(from: MediaTime, duration: MediaTime, width: Int, fps: Int, format: Format = .webp, at location: SourceLocation) {
            self.format = format
            self.from = from
            self.duration = duration
            self.width = width
            self.fps = fps
            self.location = location
        }
    }
}
