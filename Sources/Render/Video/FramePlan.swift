import DropcutTimeline

/// What one output frame shows: the background, then each layer (front first) with the
/// source frame to fetch and how to draw it.
public struct FramePlan: Sendable, Hashable {
    /// One layer of the frame.
    public struct Layer: Sendable, Hashable {
        /// The composition track the layer draws.
        public var trackID: TrackID
        /// The asset track to read and the source time whose frame to show.
        public var source: SourceTrack
        public var sourceTime: MediaTime
        public var opacity: Double
        public var transform: AffineTransform
        public var crop: Rect
        public var frameSampling: FrameSampling
        /// True when the layer's transform ramps its zoom or turn somewhere in the
        /// instruction (a Ken Burns, `clips[].transform`): the compositor then resamples it
        /// at sub-pixel precision throughout, rather than snapping each frame to even
        /// pixels and whole sizes, which would make a slow zoom step and jitter.
        public var resampled = false
    }

    /// The output frame's index and presentation time.
    public var index: Int
    public var time: MediaTime
    public var background: Color
    /// Front-most first; layers whose track is empty at `time`, or fully transparent, are
    /// left out.
    public var layers: [Layer]
}

/// Plans every output frame of a video composition: frame `n` is presented at
/// `n × frameDuration`; the instruction covering that time says which tracks to draw;
/// each track's segment maps the time back to a source time (so slow motion repeats
/// or spreads source frames, and held segments show one frame throughout).
public struct FrameScheduler: Sendable {
    public let composition: Composition
    public let videoComposition: VideoComposition

    public init(composition: Composition, videoComposition: VideoComposition) {
        self.composition = composition
        self.videoComposition = videoComposition
    }

    /// Frames in the output: enough to cover the composition's duration.
    public var frameCount: Int {
        guard let ratio = composition.duration.ratio(to: videoComposition.frameDuration), ratio.numerator > 0 else { return 0 }
        // Clamped: a composition is bounded long before (the builder's 24 hours), but a
        // conversion that traps must not be the bound.
        return Int(clamping: (ratio.numerator + ratio.denominator - 1) / ratio.denominator)
    }

    /// The frame showing at output time `time` (the last frame for a time at or past the
    /// end): what a poster or a preview shows.
    public func frameIndex(at time: MediaTime) -> Int {
        let count = frameCount
        guard count > 0 else { return 0 }
        let position = time.seconds / videoComposition.frameDuration.seconds + 1e-9
        let index = position.isFinite ? Int(Swift.min(Double(count), Swift.max(0, position)).rounded(.down)) : 0
        return Swift.min(Swift.max(0, index), count - 1)
    }

    /// The presentation time of frame `index`.
    public func time(ofFrame index: Int) -> MediaTime {
        videoComposition.frameDuration.multiplied(by: Int64(index), dividedBy: 1)
    }

    /// What frame `index` shows.
    public func plan(frame index: Int) -> FramePlan {
        var plan = FramePlan(index: index, time: .zero, background: .black, layers: [])
        self.plan(frame: index, into: &plan)
        return plan
    }

    /// What frame `index` shows, written into `plan` (reusing its layer storage, so a
    /// render loop plans without allocating).
    /// True when a ramp of `layer`'s transform changes its linear part (zoom, turn, shear);
    /// slides (push transitions) only move, and stay on the exact path.
    static func zooms(_ layer: LayerInstruction) -> Bool {
        layer.transform.keyframes.contains { keyframe in
            guard case let .ramp(from, to, _) = keyframe else { return false }
            return from.a != to.a || from.b != to.b || from.c != to.c || from.d != to.d
        }
    }

    public func plan(frame index: Int, into plan: inout FramePlan) {
        let time = time(ofFrame: index)
        let instruction = videoComposition.instruction(at: time)
        plan.index = index
        plan.time = time
        plan.background = instruction?.backgroundColor ?? videoComposition.backgroundColor
        plan.layers.removeAll(keepingCapacity: true)
        for layer in instruction?.layerInstructions ?? [] {
            guard let track = composition.track(layer.trackID), let segment = track.segment(at: time),
                  let source = segment.source, let sourceTime = segment.sourceTime(forTargetTime: time, rounding: .down) else { continue }
            let state = layer.state(at: time)
            guard state.opacity > 0 else { continue }
            plan.layers.append(FramePlan.Layer(trackID: layer.trackID, source: source.track, sourceTime: sourceTime,
                                               opacity: min(state.opacity, 1), transform: state.transform, crop: state.crop,
                                               frameSampling: layer.frameSampling, resampled: Self.zooms(layer)))
        }
    }
}
