import Foundation

/// Plans `fit: smart`'s camera path the way a camera operator moves (after AutoFlip's
/// rules): per shot, the window holds still when the subject stays within a band it can
/// keep in view; otherwise it follows through a dead zone (the subject moving inside it
/// does not move the window), at a bounded speed, smoothed so moves start and stop
/// gently with bounded acceleration and no overshoot, never leaving the picture. The
/// whole shot is known before the path is made, so the smoothing looks both ways.
///
/// Works per axis on a regular grid of `step` seconds: an axis the window spans whole
/// (the height of a 16:9 clip cut to 9:16) stays centred.
public struct CameraPathPlanner: Sendable {
    public var window: Size
    public var smoothness: Double
    /// Grid spacing, seconds.
    public var step = 0.1

    public init(window: Size, smoothness: Double) {
        self.window = Size(width: min(max(window.width, 0), 1), height: min(max(window.height, 0), 1))
        self.smoothness = min(max(smoothness, 0), 1)
    }

    /// Half the dead zone, as a fraction of the picture, for a window `w` wide: the
    /// subject moves this far either way before the window follows.
    func deadZone(_ w: Double) -> Double { w * (0.08 + 0.12 * smoothness) }
    /// The fastest move, picture fractions per second: a window width in 0.5–1.25 s.
    func maximumSpeed(_ w: Double) -> Double { w * (2.0 - 1.2 * smoothness) }
    /// The smoothing's standard deviation, seconds.
    var sigma: Double { 0.2 + 0.6 * smoothness }

    /// The path through `analysis` (boxes already upright), following what `selection`
    /// picks in each picture.
    public func plan(_ analysis: SubjectAnalysis, selection: SubjectSelection) -> CameraPath {
        var shots: [CameraPath.Shot] = []
        var sampleIndex = 0
        for range in analysis.shots {
            let count = max(1, Int(((range.upperBound - range.lowerBound) / step).rounded(.up)))
            var xs = [Double?](repeating: nil, count: count), ys = xs
            var sums = [(x: Double, y: Double, n: Double)](repeating: (0, 0, 0), count: count)
            while sampleIndex < analysis.samples.count, analysis.samples[sampleIndex].time < range.upperBound {
                let sample = analysis.samples[sampleIndex]
                sampleIndex += 1
                guard sample.time >= range.lowerBound, let region = selection.region(among: sample.boxes) else { continue }
                let k = min(count - 1, max(0, Int(((sample.time - range.lowerBound) / step).rounded())))
                sums[k].x += region.x + region.width / 2
                sums[k].y += region.y + region.height / 2
                sums[k].n += 1
            }
            for k in 0..<count where sums[k].n > 0 {
                xs[k] = sums[k].x / sums[k].n
                ys[k] = sums[k].y / sums[k].n
            }
            let px = axis(xs, window: window.width), py = axis(ys, window: window.height)
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
            shots = [CameraPath.Shot(range: 0..<max(analysis.duration, step), keyframes: [CameraPath.Keyframe(time: 0, centre: Point(x: 0.5, y: 0.5))])]
        }
        return CameraPath(window: window, shots: shots)
    }

    /// One axis of one shot: the window centre per grid point, from the subject centres
    /// seen (nil: none seen there).
    func axis(_ seen: [Double?], window w: Double) -> [Double] {
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
        // Follow through the dead zone, at a bounded speed.
        let stepLimit = maximumSpeed(w) * step
        var path = [Double](repeating: 0, count: count)
        var camera = min(max(target[0], lo), hi)
        for k in 0..<count {
            var wanted = camera
            if target[k] > camera + zone { wanted = target[k] - zone }
            if target[k] < camera - zone { wanted = target[k] + zone }
            wanted = min(max(wanted, lo), hi)
            camera += min(max(wanted - camera, -stepLimit), stepLimit)
            path[k] = camera
        }
        // Smooth both ways (Gaussian: positive weights, so no overshoot and no speed
        // beyond the limit), then keep the window inside the picture.
        return gaussianSmoothed(path, sigma: sigma / step).map { min(max($0, lo), hi) }
    }

    /// Gaps filled by straight lines between what was seen, held at the ends.
    func filled(_ seen: [Double?]) -> [Double] {
        var out = [Double](repeating: 0, count: seen.count)
        let known = seen.indices.filter { seen[$0] != nil }
        for i in seen.indices {
            if let v = seen[i] { out[i] = v; continue }
            let before = known.last { $0 < i }, after = known.first { $0 > i }
            switch (before, after) {
            case let (b?, a?):
                out[i] = seen[b]! + (seen[a]! - seen[b]!) * Double(i - b) / Double(a - b)
            case let (b?, nil): out[i] = seen[b]!
            case let (nil, a?): out[i] = seen[a]!
            default: out[i] = 0.5
            }
        }
        return out
    }

    /// A median over `radius` points each side: one false detection moves nothing.
    func medianFiltered(_ values: [Double], radius: Int) -> [Double] {
        values.indices.map { i in
            let window = values[max(0, i - radius)...min(values.count - 1, i + radius)].sorted()
            return window[window.count / 2]
        }
    }

    /// Convolution with a Gaussian of `sigma` grid points, the ends held.
    func gaussianSmoothed(_ values: [Double], sigma: Double) -> [Double] {
        guard sigma > 0.01, values.count > 1 else { return values }
        let radius = Int((3 * sigma).rounded(.up))
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        return values.indices.map { i in
            var sum = 0.0
            for (j, weight) in zip(-radius...radius, weights) {
                sum += weight * values[min(max(i + j, 0), values.count - 1)]
            }
            return sum / total
        }
    }
}
