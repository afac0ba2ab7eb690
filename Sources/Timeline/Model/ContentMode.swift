/// How a frame of one shape goes into a canvas of another.
public enum ContentMode: String, Sendable, Hashable, CaseIterable {
    /// Whole frame visible, letterboxed or pillarboxed (aspect kept).
    case fit
    /// Canvas covered, the excess cropped (aspect kept).
    case fill
    /// Canvas covered, aspect changed.
    case stretch
    /// Canvas covered like `fill`, the crop following the subject (`SmartFit`): placed as
    /// `fill` here; the composition builder moves the window along a `CameraPath`.
    case smart
}

extension AffineTransform {
    /// An AVFoundation-style preferredTransform for a frame of `naturalSize` shown rotated
    /// clockwise by `quarterTurns × 90°`: the rotation plus the translation that brings
    /// the rotated frame back to the origin (portrait iPhone video: `[0 1 -1 0 h 0]`).
    public static func orientation(quarterTurns: Int, naturalSize: PixelSize) -> AffineTransform {
        let w = Double(naturalSize.width), h = Double(naturalSize.height)
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: return AffineTransform(quarterTurns: 1).concatenating(AffineTransform(translationX: h, y: 0))
        case 2: return AffineTransform(quarterTurns: 2).concatenating(AffineTransform(translationX: w, y: h))
        case 3: return AffineTransform(quarterTurns: 3).concatenating(AffineTransform(translationX: 0, y: w))
        default: return .identity
        }
    }

    /// The axis-aligned box that a `size` frame at the origin covers after this transform.
    public func boundingBox(of size: Size) -> Rect {
        let corners = [Point(x: 0, y: 0), Point(x: size.width, y: 0), Point(x: 0, y: size.height), Point(x: size.width, y: size.height)]
            .map(apply(to:))
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    /// The layer transform that shows a frame of `naturalSize` upright (through its
    /// `preferredTransform`) and places it in `renderSize` by `mode`, centred.
    /// Quarter-turn rotations stay exact: only 0/±1 and whole-pixel translations appear
    /// before the scale.
    public static func placing(naturalSize: PixelSize, preferredTransform: AffineTransform,
                               in renderSize: PixelSize, mode: ContentMode) -> AffineTransform {
        let box = preferredTransform.boundingBox(of: Size(width: Double(naturalSize.width), height: Double(naturalSize.height)))
        let upright = preferredTransform.concatenating(AffineTransform(translationX: -box.x, y: -box.y))
        let rw = Double(renderSize.width), rh = Double(renderSize.height)
        guard box.width > 0, box.height > 0 else { return upright }
        var sx = rw / box.width, sy = rh / box.height
        switch mode {
        case .fit: sx = min(sx, sy); sy = sx
        case .fill, .smart: sx = max(sx, sy); sy = sx
        case .stretch: break
        }
        return upright
            .concatenating(AffineTransform(scaleX: sx, y: sy))
            .concatenating(AffineTransform(translationX: (rw - box.width * sx) / 2, y: (rh - box.height * sy) / 2))
    }
}

extension PixelSize {
    /// The size a frame of this size shows at after `transform` (width and height swap
    /// for quarter turns).
    public func applying(_ transform: AffineTransform) -> PixelSize {
        let box = transform.boundingBox(of: Size(width: Double(width), height: Double(height)))
        return PixelSize(width: Int(box.width.rounded()), height: Int(box.height.rounded()))
    }
}
