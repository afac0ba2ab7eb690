/// The keyframe animations of an overlay layer, one per animatable property (the
/// `CAKeyframeAnimation`s added to a CALayer for `opacity`, `position`, `transform.scale`
/// and `transform.rotation.z`). Each is optional; an absent one leaves its property to
/// the layer's static value and ramps.
public struct OverlayAnimation: Sendable, Hashable {
    /// Multiplies the layer's opacity (its fades included).
    public var opacity: KeyframeAnimation<Double>?
    /// Where the layer sits, as a unit point like `Anchor.unitPoint`: replaces its anchor
    /// and motion while set.
    public var position: KeyframeAnimation<Point>?
    /// Multiplies the layer's scale.
    public var scale: KeyframeAnimation<Double>?
    /// Degrees clockwise about the layer's centre, added to its own rotation.
    public var rotation: KeyframeAnimation<Double>?

    /// Degrees of the layer's spin in depth, added to its own (no effect without a spin).
    public var spin: KeyframeAnimation<Double>?

    public init() {}

    /// True when no property is animated.
    public var isEmpty: Bool { opacity == nil && position == nil && scale == nil && rotation == nil && spin == nil }

    /// `opacity: ...; rotate: ...` for each animated property, for `dropcut plan`.
    public var summary: String {
        var parts: [String] = []
        if let opacity { parts.append("opacity \(opacity)") }
        if let position { parts.append("position \(position)") }
        if let scale { parts.append("scale \(scale)") }
        if let rotation { parts.append("rotate \(rotation)") }
        if let spin { parts.append("spin \(spin)") }
        return parts.joined(separator: "; ")
    }
}
