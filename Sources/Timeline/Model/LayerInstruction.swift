/// How one composition video track is drawn during an instruction
/// (AVMutableVideoCompositionLayerInstruction): opacity, affine transform into the
/// render canvas, and crop rectangle in the source frame, each a ramp over composition time.
public struct LayerInstruction: Sendable, Hashable {
    /// The composition track this layer draws.
    public var trackID: TrackID
    /// Default 1 (opaque).
    public var opacity = Ramp<Double>(defaultValue: 1)
    /// Maps source-frame pixels into the render canvas. Default identity.
    public var transform = Ramp<AffineTransform>(defaultValue: .identity)
    /// The part of the source frame to use, in source pixels. Default: the whole frame.
    public var cropRectangle = Ramp<Rect>(defaultValue: .infinite)
    /// Repeat or blend source frames between their timestamps (slow motion). Default
    /// `.repeat`.
    public var frameSampling = FrameSampling.repeat

    public init(trackID: TrackID) {
        self.trackID = trackID
    }

    public mutating func setOpacity(_ value: Double, at time: MediaTime) throws(RampError) {
        try opacity.set(value, at: time)
    }

    public mutating func setOpacityRamp(from start: Double, to end: Double, range: TimeRange) throws(RampError) {
        try opacity.setRamp(from: start, to: end, range: range)
    }

    public mutating func setTransform(_ value: AffineTransform, at time: MediaTime) throws(RampError) {
        try transform.set(value, at: time)
    }

    public mutating func setTransformRamp(from start: AffineTransform, to end: AffineTransform, range: TimeRange) throws(RampError) {
        try transform.setRamp(from: start, to: end, range: range)
    }

    public mutating func setCropRectangle(_ value: Rect, at time: MediaTime) throws(RampError) {
        try cropRectangle.set(value, at: time)
    }

    public mutating func setCropRectangleRamp(from start: Rect, to end: Rect, range: TimeRange) throws(RampError) {
        try cropRectangle.setRamp(from: start, to: end, range: range)
    }

    /// Opacity, transform and crop at `time`.
    public func state(at time: MediaTime) -> (opacity: Double, transform: AffineTransform, crop: Rect) {
        (opacity.value(at: time), transform.value(at: time), cropRectangle.value(at: time))
    }
}
