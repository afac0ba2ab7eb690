import Foundation
import DropcutTimeline

// `fit: smart`: the clip's layer follows a camera path planned from the analysis of its
// picture (Timeline's CameraPathPlanner), as a transform ramp — the same placement
// `fill` makes, its crop window moved along the path between keyframes.

extension CompositionBuilder {
    /// The window `fit: smart` crops from `clip` for `renderSize`, as fractions of the
    /// upright picture, with the upright picture's box and the fill scale.
    struct SmartWindow {
        var box: Rect
        var upright: DropcutTimeline.AffineTransform
        var scale: Double
        var window: Size
    }

    func smartWindow(of clip: PlacedClip, renderSize: PixelSize) -> SmartWindow {
        let (upright, box) = uprightPicture(of: clip)
        let rw = Double(renderSize.width), rh = Double(renderSize.height)
        let scale = max(rw / max(box.width, 1), rh / max(box.height, 1))
        return SmartWindow(box: box, upright: upright, scale: scale,
                           window: Size(width: min(1, rw / scale / max(box.width, 1)), height: min(1, rh / scale / max(box.height, 1))))
    }

    /// The analysis of `clip` and its camera path in `renderSize` (source times); nil
    /// when the output is not `fit: smart` or the clip is a still (placed as `fill`).
    func reframing(of clip: PlacedClip, renderSize: PixelSize) throws(CompositionBuildError) -> ClipReframing? {
        guard recipe.output.fit == .smart, !clip.video.isStillImage else { return nil }
        let path = clip.media.path
        let analysis: SubjectAnalysis
        let shown = max(0, clip.trim.start.seconds)...max(0, clip.trim.start.seconds, clip.trim.end.seconds)
        do { analysis = try subjects.analysis(of: path, subject: recipe.output.smart.subject, within: shown) } catch {
            throw .media(path: path, reason: "fit: smart could not analyse it: \(Self.reason(error, about: path))")
        }
        let geometry = smartWindow(of: clip, renderSize: renderSize)
        // Only what lies within the video the probe found (a damaged timestamp can put a
        // picture hours past the end).
        var within = analysis
        let end = clip.video.timeRange.end.seconds
        within.samples.removeAll { !($0.time <= end) }
        within.cuts.removeAll { !($0 < end) }
        // The shots run to the end of what the clip shows (the analysis's last picture may
        // be a few frames before it: it skips pictures nothing refers to).
        within.duration = max(within.start, min(end, clip.trim.end.seconds))
        let upright = within.upright(through: orientation(of: clip.video), naturalSize: clip.video.naturalSize)
        let planner = CameraPathPlanner(window: geometry.window, smoothness: recipe.output.smart.smoothness)
        let cameraPath = planner.plan(upright, selection: SubjectSelection(subject: recipe.output.smart.subject, window: geometry.window))
        return ClipReframing(path: path, fit: recipe.output.smart, pictureSize: Size(width: geometry.box.width, height: geometry.box.height),
                             analysis: upright, cameraPath: cameraPath)
    }

    /// The layer transform that shows `clip` with its crop window centred at `centre`
    /// (normalised).
    func smartTransform(_ geometry: SmartWindow, centre: Point, renderSize: PixelSize) -> DropcutTimeline.AffineTransform {
        Self.centring(geometry.upright, on: Point(x: centre.x * geometry.box.width, y: centre.y * geometry.box.height),
                      scale: geometry.scale, renderSize: renderSize)
    }

    /// `clip`'s layer transform over composition time along its camera path: straight
    /// moves between the path's keyframes, a jump at each cut. Nil when not `fit: smart`.
    func smartRamp(of clip: PlacedClip, renderSize: PixelSize) throws(CompositionBuildError) -> Ramp<DropcutTimeline.AffineTransform>? {
        guard let path = clip.reframing?.cameraPath else { return nil }
        let geometry = smartWindow(of: clip, renderSize: renderSize)
        let trimStart = clip.trim.start.seconds, trimEnd = clip.trim.end.seconds
        // Composition time of a source time, through the ranges the clip is shown in
        // (speed ranges scale each their own); before them the clip's start, past them
        // its end.
        func compositionTime(_ t: Double) -> MediaTime {
            guard let first = clip.shown.first, let last = clip.shown.last else { return clip.start }
            if t <= first.source.start.seconds { return first.target.start }
            for (source, target) in clip.shown where t < source.end.seconds {
                guard t >= source.start.seconds else { return target.start }
                let fraction = (t - source.start.seconds) / source.duration.seconds
                return target.start + MediaTime(seconds: fraction * target.duration.seconds, preferredTimescale: 90000)
            }
            return last.target.end
        }
        var ramp = Ramp<DropcutTimeline.AffineTransform>(defaultValue: smartTransform(geometry, centre: path.centre(at: trimStart), renderSize: renderSize))
        var last: MediaTime?
        try rampEdit {
            for shot in path.shots where shot.range.upperBound > trimStart && shot.range.lowerBound < trimEnd {
                let from = max(shot.range.lowerBound, trimStart)
                var points = [(time: from, centre: path.centre(at: from))]
                for keyframe in shot.keyframes where keyframe.time > from && keyframe.time < trimEnd {
                    points.append((keyframe.time, keyframe.centre))
                }
                // Ticks that coincide (extreme speeds): keep the first.
                var kept: [(MediaTime, Point)] = []
                for point in points {
                    let time = compositionTime(point.time)
                    if let previous = kept.last?.0 ?? last, time <= previous { continue }
                    kept.append((time, point.centre))
                }
                guard let first = kept.first else { continue }
                if kept.count == 1 {
                    try ramp.set(smartTransform(geometry, centre: first.1, renderSize: renderSize), at: first.0)
                } else {
                    for (a, b) in zip(kept, kept.dropFirst()) {
                        try ramp.setRamp(from: smartTransform(geometry, centre: a.1, renderSize: renderSize),
                                         to: smartTransform(geometry, centre: b.1, renderSize: renderSize), range: TimeRange(start: a.0, end: b.0))
                    }
                }
                last = kept.last?.0
            }
        }
        return ramp
    }
}
