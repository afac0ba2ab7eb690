import Foundation
import DropcutTimeline

// A clip's own motion (`transform:` keyframes, `ken_burns:`) as its layer's transform ramp.

extension CompositionBuilder {
    /// The layer transform of a clip with its own motion over composition time: set to
    /// the first keyframe's from the clip's start and ramped between consecutive ones
    /// (component-wise on the matrix, as AVFoundation does). A clip without motion of its
    /// own follows its camera path under `fit: smart`; else nil, and its layers keep
    /// their placement set as they always were.
    func transformRamp(of clip: PlacedClip, renderSize: PixelSize) throws(CompositionBuildError) -> Ramp<DropcutTimeline.AffineTransform>? {
        var ramp = Ramp<DropcutTimeline.AffineTransform>(defaultValue: .identity)
        let keyframes = try motion(of: clip, renderSize: renderSize)
        // A clip's own motion wins over `fit: smart`, which moves only clips without.
        guard let first = keyframes.first else { return try smartRamp(of: clip, renderSize: renderSize) }
        try rampEdit {
            // (A set point at the first ramp's own start would clash with it.)
            if keyframes.count == 1 || first.at > .zero { try ramp.set(first.transform, at: clip.start) }
            for (a, b) in zip(keyframes, keyframes.dropFirst()) {
                try ramp.setRamp(from: a.transform, to: b.transform, range: TimeRange(start: clip.start + a.at, end: clip.start + b.at))
            }
        }
        return ramp
    }

    /// The clip's keyframes as layer transforms, times from the clip's start.
    private func motion(of clip: PlacedClip, renderSize: PixelSize) throws(CompositionBuildError) -> [(at: MediaTime, transform: DropcutTimeline.AffineTransform)] {
        let width = Double(renderSize.width), height = Double(renderSize.height)
        if let kenBurns = clip.spec.kenBurns {
            let (upright, box) = uprightPicture(of: clip)
            func filling(_ values: [Length], _ name: String) throws(CompositionBuildError) -> DropcutTimeline.AffineTransform {
                let x = values[0].pixels(of: box.width), y = values[1].pixels(of: box.height)
                let w = values[2].pixels(of: box.width), h = values[3].pixels(of: box.height)
                // Half a pixel of slack: `100%` of an odd side, rounding in a written size.
                guard w > 0, h > 0, x + w <= box.width + 0.5, y + h <= box.height + 0.5 else {
                    throw .recipe(RecipeError("ken_burns.\(name) [\(values.map(\.description).joined(separator: ", "))] lies outside the upright source (\(formatNumber(box.width))x\(formatNumber(box.height)))",
                                              at: kenBurns.location))
                }
                return Self.centring(upright, on: Point(x: x + w / 2, y: y + h / 2), scale: max(width / w, height / h), renderSize: renderSize)
            }
            return [(.zero, try filling(kenBurns.from, "from")), (clip.duration, try filling(kenBurns.to, "to"))]
        }
        var keyframes: [(at: MediaTime, transform: DropcutTimeline.AffineTransform)] = []
        for keyframe in clip.spec.transform {
            guard keyframe.at <= clip.duration else {
                throw .recipe(RecipeError("transform keyframe at \(keyframe.at)s lies outside the clip (\(clip.duration)s long)", at: keyframe.location))
            }
            let radians = keyframe.rotate * .pi / 180
            let (sine, cosine) = (sin(radians), cos(radians))
            let s = keyframe.scale
            let motion = DropcutTimeline.AffineTransform(translationX: -width / 2, y: -height / 2)
                .concatenating(DropcutTimeline.AffineTransform(a: s * cosine, b: s * sine, c: -s * sine, d: s * cosine, tx: 0, ty: 0))
                .concatenating(DropcutTimeline.AffineTransform(translationX: width / 2 + keyframe.moveX.pixels(of: width),
                                                        y: height / 2 + keyframe.moveY.pixels(of: height)))
            keyframes.append((keyframe.at, clip.transform.concatenating(motion)))
        }
        return keyframes
    }

    /// The clip shown upright (its orientation, moved back to the origin) and the box it
    /// covers, in display pixels.
    func uprightPicture(of clip: PlacedClip) -> (transform: DropcutTimeline.AffineTransform, box: Rect) {
        let preferred = orientation(of: clip.video)
        let natural = clip.video.naturalSize
        let box = preferred.boundingBox(of: Size(width: Double(natural.width), height: Double(natural.height)))
        return (preferred.concatenating(DropcutTimeline.AffineTransform(translationX: -box.x, y: -box.y)), box)
    }

    /// The layer transform that shows the upright picture's point `centre` (pixels) at
    /// the canvas's centre, scaled by `scale`: a crop window filling the canvas (Ken Burns'
    /// rectangles, `fit: smart`'s window).
    static func centring(_ upright: DropcutTimeline.AffineTransform, on centre: Point, scale: Double,
                         renderSize: PixelSize) -> DropcutTimeline.AffineTransform {
        upright.concatenating(DropcutTimeline.AffineTransform(translationX: -centre.x, y: -centre.y))
            .concatenating(DropcutTimeline.AffineTransform(scaleX: scale, y: scale))
            .concatenating(DropcutTimeline.AffineTransform(translationX: Double(renderSize.width) / 2, y: Double(renderSize.height) / 2))
    }
}
