import Foundation

/// Plans `fit: smart`'s camera path the way a camera operator moves (after AutoFlip's
/// rules): per shot, the window holds still when the subject stays within a band it can
/// keep in view; otherwise it follows through a dead zone (the subject moving inside it
/// does not move the window), speeding up and braking at a bounded acceleration to a
/// bounded speed, arriving without overshoot, never leaving the picture. Detections are
/// median-filtered first, so one false face moves nothing.
///
/// Works per axis on a regular grid of `step` seconds: an axis the window spans whole
/// (the height of a 16:9 clip cut to 9:16) stays centred.
package struct CameraPathPlanner: Sendable {
    package var window: Size
    package var smoothness: Double
    /// Grid spacing, seconds.
    package var step = 0.1
    /// The most grid points a clip gets (a day at 0.1 s is 864 000).
    static let maximumPoints = 1_000_000

    package init(window: Size, smoothness: Double) {
        self.window = Size(width: min(max(window.width, 0), 1), height: min(max(window.height, 0), 1))
        self.smoothness = min(max(smoothness, 0), 1)
    }

    /// Half the dead zone, as a fraction of the picture, for a window `w` wide: the
    /// subject moves this far either way before the window follows.
    func deadZone(_ w: Double) -> Double { w * (0.08 + 0.12 * smoothness) }
    /// The fastest move, picture fractions per second: a window width in 0.5–1.25 s.
    func maximumSpeed(_ w: Double) -> Double { w * (2.0 - 1.2 * smoothness) }
    /// Seconds from still to full speed (and back): the acceleration bound.
    var rampTime: Double { 0.3 + 0.5 * smoothness }

    /// The path through `analysis` (boxes already upright), following the subject
    /// `SubjectTrack` finds through each shot among what `selection` offers.
    package func plan(_ analysis: SubjectAnalysis, selection: SubjectSelection) -> CameraPath {
        var shots: [CameraPath.Shot] = []
        var sampleIndex = 0
        // The grid never holds more than `maximumPoints` (a damaged timestamp can claim
        // a clip of years): coarser over a very long clip.
        let length = analysis.duration.isFinite ? max(0, analysis.duration - analysis.start) : 0
        let step = max(self.step, length / Double(Self.maximumPoints))
        for range in analysis.shots where range.lowerBound.isFinite && range.upperBound.isFinite {
            let count = max(1, Int(min(Double(Self.maximumPoints), ((range.upperBound - range.lowerBound) / step).rounded(.up))))
            var xs = [Double?](repeating: nil, count: count), ys = xs
            var sums = [(x: Double, y: Double, n: Double)](repeating: (0, 0, 0), count: count)
            // The shot's pictures, then the subject followed through them.
            var pictures: [(time: Double, candidates: [SubjectSelection.Candidate])] = []
            while sampleIndex < analysis.samples.count, analysis.samples[sampleIndex].time < range.upperBound {
                let sample = analysis.samples[sampleIndex]
                sampleIndex += 1
                guard sample.time >= range.lowerBound, sample.time.isFinite else { continue }
                pictures.append((sample.time, selection.candidates(among: sample.boxes)))
            }
            for (time, centre) in SubjectTrack.centres(through: pictures, window: window) {
                let k = min(count - 1, max(0, Int(((time - range.lowerBound) / step).rounded())))
                sums[k].x += centre.x
                sums[k].y += centre.y
                sums[k].n += 1
            }
            for k in 0..<count where sums[k].n > 0 {
                xs[k] = sums[k].x / sums[k].n
                ys[k] = sums[k].y / sums[k].n
            }
            let px = axis(xs, window: window.width, step: step), py = axis(ys, window: window.height, step: step)
            var keyframes: [CameraPath.Keyframe] = []
            for k in 0..<count {
                let keyframe = CameraPath.Keyframe(time: range.lowerBound + Double(k) * step, centre: Point(x: px[k], y: py[k]))
                // Drop a point that lies on the straight move between its neighbours.
                if keyframes.count >= 2, k < count {
                    let a = keyframes[keyframes.count - 2], b = keyframes[keyframes.count - 1]
                    let f = (b.time - a.time) / (keyframe.time - a.time)
                    let expected = Point.interpolate(from: a.centre, to: keyframe.centre, fraction: f)
                    if abs(expected.x - b.centre.x) < 1e-5, abs(expected.y - b.centre.y) < 1e-5 { keyframes.removeLast() }
                }
                keyframes.append(keyframe)
            }
            shots.append(CameraPath.Shot(range: range, keyframes: keyframes))
        }
        if shots.isEmpty {
            shots = [CameraPath.Shot(range: analysis.start..<max(analysis.duration, analysis.start + step),
                                     keyframes: [CameraPath.Keyframe(time: analysis.start, centre: Point(x: 0.5, y: 0.5))])]
        }
        return CameraPath(window: window, shots: shots)
    }

    /// One axis of one shot: the window centre per grid point, from the subject centres
    /// seen (nil: none seen there).
    func axis(_ seen: [Double?], window w: Double, step: Double) -> [Double] {
        let count = seen.count
        guard w < 0.999, count > 0 else { return [Double](repeating: 0.5, count: count) }
        let lo = w / 2, hi = 1 - w / 2
        // Nothing to follow in the whole shot: the centre, as `fit: fill` has it.
        guard seen.contains(where: { $0 != nil }) else { return [Double](repeating: 0.5, count: count) }
        var target = filled(seen)
        target = medianFiltered(target, radius: 2)
        let low = target.min()!, high = target.max()!
        let zone = deadZone(w)
        // The subject stays inside a band the window can hold: hold still, centred on it.
        if high - low <= 2 * zone {
            return [Double](repeating: min(max((low + high) / 2, lo), hi), count: count)
        }
        // Follow: the camera stays put while the subject moves inside the dead zone; once
        // it leaves, the camera goes after it until it is centred again (hysteresis), with
        // bounded speed and acceleration, braking so as to arrive without overshoot.
        let speed = maximumSpeed(w), acceleration = speed / rampTime
        var path = [Double](repeating: 0, count: count)
        var camera = min(max(target[0], lo), hi), velocity = 0.0, tracking = false
        for k in 0..<count {
            let wanted = min(max(target[k], lo), hi)
            if !tracking, abs(target[k] - camera) > zone { tracking = true }
            if tracking, abs(wanted - camera) < zone / 4, abs(velocity) < acceleration * step { tracking = false }
            let error = tracking ? wanted - camera : 0
            // The fastest speed from which braking step by step still stops within the
            // error (the discrete form of v = √(2·a·d)).
            let brake = acceleration * step
            let stoppable = brake * ((0.25 + 2 * abs(error) / (brake * step)).squareRoot() - 0.5)
            let desired = (error < 0 ? -1.0 : 1.0) * min(speed, stoppable)
            velocity += min(max(desired - velocity, -brake), brake)
            var next = camera + velocity * step
            // Arriving slowly: stop on the spot rather than pass it (at speed, the subject
            // turned back past the window: brake as usual).
            if tracking, (wanted - camera) * (wanted - next) < 0, abs(velocity) <= brake { next = wanted; velocity = 0 }
            if next < lo || next > hi { next = min(max(next, lo), hi); velocity = 0 }
            camera = next
            path[k] = camera
        }
        return path
    }

    /// Gaps filled by straight lines between what was seen, held at the ends (one pass:
    /// an hour of grid points is 36 000).
    func filled(_ seen: [Double?]) -> [Double] {
        var out = [Double](repeating: 0.5, count: seen.count)
        var previous: Int?
        for i in seen.indices {
            guard let value = seen[i] else { continue }
            if let p = previous {
                for j in (p + 1)..<i { out[j] = seen[p]! + (value - seen[p]!) * Double(j - p) / Double(i - p) }
            } else {
                for j in 0..<i { out[j] = value }
            }
            out[i] = value
            previous = i
        }
        if let p = previous { for j in (p + 1)..<seen.count { out[j] = seen[p]! } }
        return out
    }

    /// A median over `radius` points each side: one false detection moves nothing.
    func medianFiltered(_ values: [Double], radius: Int) -> [Double] {
        values.indices.map { i in
            let window = values[max(0, i - radius)...min(values.count - 1, i + radius)].sorted()
            return window[window.count / 2]
        }
    }
}
