/// One of nine places on the output where an overlay is pinned.
public enum Anchor: String, Sendable, Hashable, CaseIterable {
    case topLeft = "top-left", top, topRight = "top-right"
    case left, center, right
    case bottomLeft = "bottom-left", bottom, bottomRight = "bottom-right"

    /// 0, 0.5 or 1 across and down: where on the canvas (and on the overlay) the anchor is.
    public var unitPoint: Point {
        let column: Double, row: Double
        switch self {
        case .topLeft, .left, .bottomLeft: column = 0
        case .top, .center, .bottom: column = 0.5
        case .topRight, .right, .bottomRight: column = 1
        }
        switch self {
        case .topLeft, .top, .topRight: row = 0
        case .left, .center, .right: row = 0.5
        case .bottomLeft, .bottom, .bottomRight: row = 1
        }
        return Point(x: column, y: row)
    }
}

/// A layer drawn over the composited video in output coordinates (origin top-left), like a
/// CALayer handed to AVVideoCompositionCoreAnimationTool: an image or a text, pinned to an
/// anchor with a margin, shown during a time range with an opacity ramp.
public struct OverlayLayer: Sendable, Hashable {
    /// What the layer draws: a picture, a looping sequence of pictures, or text.
    public enum Content: Sendable, Hashable {
        /// A PNG or JPEG file.
        case image(path: String)
        /// Pictures shown one after another, `frameDuration` each, looping (the contents
        /// animation of a CALayer): an animated logo.
        case imageSequence(paths: [String], frameDuration: MediaTime)
        /// Text set in `fontPath` at `pixelSize` (the em height) in `color`.
        case text(String, fontPath: String, pixelSize: Double, color: Color)
        /// Layers inside a box of `size` (a CALayer with sublayers): placed in the box as
        /// overlays are on the canvas, and moved, turned, scaled and faded with it.
        case group([OverlayLayer], size: Size)
        /// Captions: each cue drawn while it shows, laid out and placed by the track's
        /// style in the safe area (the layer's anchor and margin do not apply).
        case captions(CaptionTrack)
    }

    /// What makes text legible on any background: an outline around the glyphs and a
    /// drop shadow under them, each in its own colour.
    public struct TextEffects: Sendable, Hashable {
        /// Outline thickness in pixels (0: none).
        public var outlineWidth: Double = 0
        public var outlineColor = Color.black
        /// Shadow offset down and right, in pixels (0: none).
        public var shadowOffset: Double = 0
        public var shadowColor = Color(red: 0, green: 0, blue: 0, alpha: 0.6)
        public init() {}
    }

    public var content: Content
    public var anchor: Anchor
    /// Distance from the anchored canvas edges, in pixels.
    public var margin: Double
    /// Images: drawn at this width (height by aspect ratio); nil: natural size.
    public var width: Double?
    /// When the layer is shown, in composition time.
    public var timeRange: TimeRange
    /// Multiplies the content's own alpha.
    public var opacity = Ramp<Double>(defaultValue: 1)
    /// Where the layer sits over time, as a unit point like `Anchor.unitPoint` (0, 0.5 or
    /// 1 across and down — or anything between while it moves); nil: fixed at `anchor`.
    /// A `set` keyframe jumps (Core Animation's discrete mode), a ramp glides (linear).
    public var motion: Ramp<Point>?
    /// Multiplies the content's drawn size (1: as is).
    public var scale = Ramp<Double>(defaultValue: 1)
    /// Degrees clockwise about the layer's centre (its anchor point, as a CALayer's
    /// default (0.5, 0.5)).
    public var rotation: Double = 0
    /// A turn in depth about the X or Y axis through the layer's centre, seen with
    /// perspective (seed 003's `m34 = -1/distance`); nil: flat.
    public var spin: Spin?
    /// Keyframe animations of opacity, position, scale and rotation (with timing curves,
    /// repeats and autoreverse), on top of the ramps above.
    public var animation = OverlayAnimation()
    /// Text only: outline and shadow.
    public var textEffects = TextEffects()

    public init(content: Content, anchor: Anchor, margin: Double, width: Double? = nil, timeRange: TimeRange) {
        self.content = content
        self.anchor = anchor
        self.margin = margin
        self.width = width
        self.timeRange = timeRange
    }

    /// A turn in depth: `degrees` about `axis` (plus the animation's), seen from `distance`
    /// pixels away.
    public struct Spin: Sendable, Hashable {
        public var axis: ProjectiveTransform.Axis
        public var degrees: Double
        public var distance: Double
        public init(axis: ProjectiveTransform.Axis, degrees: Double = 0, distance: Double) {
            self.axis = axis
            self.degrees = degrees
            self.distance = distance
        }
    }

    /// Where the layer goes on a `renderSize` canvas at `time` once its drawn size is
    /// known: pinned by its anchor (or its motion) with the margin kept to the edges.
    public func frame(contentSize: Size, renderSize: PixelSize, at time: MediaTime = .zero) -> Rect {
        let u = animation.position?.value(at: time) ?? motion?.value(at: time) ?? anchor.unitPoint
        let free = Size(width: Double(renderSize.width) - 2 * margin - contentSize.width,
                        height: Double(renderSize.height) - 2 * margin - contentSize.height)
        return Rect(x: margin + free.width * u.x, y: margin + free.height * u.y,
                    width: contentSize.width, height: contentSize.height)
    }

    /// The opacity at `time`: the ramp times the animation, clamped to 0...1.
    public func opacity(at time: MediaTime) -> Double {
        min(1, max(0, opacity.value(at: time) * (animation.opacity?.value(at: time) ?? 1)))
    }

    /// The scale at `time`: the ramp times the animation (never negative).
    public func scale(at time: MediaTime) -> Double {
        max(0, scale.value(at: time) * (animation.scale?.value(at: time) ?? 1))
    }

    /// Degrees clockwise at `time`: the layer's own plus the animation's.
    public func rotation(at time: MediaTime) -> Double {
        rotation + (animation.rotation?.value(at: time) ?? 0)
    }

    /// A group's whole map at `time` from its box (`size`, unscaled) to the canvas: like
    /// `transform`, with its scale applied about its centre too (a group has no raster to
    /// rescale; nor has a layer whose scale is keyframed, drawn from its raster at scale 1).
    public func groupTransform(size: Size, renderSize: PixelSize, at time: MediaTime) -> ProjectiveTransform {
        let s = scale(at: time)
        let depth = spin.map { ProjectiveTransform.spin(about: $0.axis, degrees: spinDegrees(at: time), distance: $0.distance) } ?? .identity
        let frame = frame(contentSize: Size(width: size.width * s, height: size.height * s), renderSize: renderSize, at: time)
        return .translation(x: frame.x + frame.width / 2, y: frame.y + frame.height / 2)
            * depth
            * .rotation(degrees: rotation(at: time))
            * .scale(s)
            * .translation(x: -size.width / 2, y: -size.height / 2)
    }

    /// Degrees of the turn in depth at `time` (0 without a spin).
    public func spinDegrees(at time: MediaTime) -> Double {
        guard let spin else { return 0 }
        return spin.degrees + (animation.spin?.value(at: time) ?? 0)
    }

    /// True when the layer is drawn square to the canvas at `time` (no turn in the plane
    /// or in depth, up to whole turns): the exact blit applies.
    public func isUpright(at time: MediaTime) -> Bool {
        rotation(at: time).truncatingRemainder(dividingBy: 360) == 0 && spinDegrees(at: time).truncatingRemainder(dividingBy: 360) == 0
    }

    /// Where the layer's `contentSize` raster goes on the canvas at `time`: its frame's
    /// centre (the anchor point) is where `frame` puts it, the raster turns about that
    /// centre by `rotation(at:)`, then in depth by its spin (as a CALayer's transform
    /// `perspective × rotation(y) × rotation(z)` about its anchor point).
    public func transform(contentSize: Size, renderSize: PixelSize, at time: MediaTime) -> ProjectiveTransform {
        let frame = frame(contentSize: contentSize, renderSize: renderSize, at: time)
        let depth = spin.map { ProjectiveTransform.spin(about: $0.axis, degrees: spinDegrees(at: time), distance: $0.distance) } ?? .identity
        return .translation(x: frame.x + frame.width / 2, y: frame.y + frame.height / 2)
            * depth
            * .rotation(degrees: rotation(at: time))
            * .translation(x: -contentSize.width / 2, y: -contentSize.height / 2)
    }
}
