/// Where `fit: smart`'s crop window is centred over one clip: per shot, keyframes of the
/// window's centre (upright picture, normalised 0...1) at source times, joined by
/// straight moves; a shot's path never runs into the next (a cut jumps).
public struct CameraPath: Sendable, Hashable {
    /// Where the window's centre is at one source time (seconds) of a shot.
    public struct Keyframe: Sendable, Hashable {
        public var time: Double
        public var centre: Point
        public init(time: Double, centre: Point) {
            self.time = time
            self.centre = centre
        }
    }

    /// One shot of the clip (source seconds) and the window's moves within it.
    public struct Shot: Sendable, Hashable {
        public var range: Range<Double>
        /// At least one; the first at the shot's start; ascending.
        public var keyframes: [Keyframe]
        public init(range: Range<Double>, keyframes: [Keyframe]) {
            self.range = range
            self.keyframes = keyframes
        }

        /// True when the window holds still over the whole shot.
        public var isStill: Bool {
            let first = keyframes[0].centre
            return keyframes.allSatisfy { abs($0.centre.x - first.x) < 1e-9 && abs($0.centre.y - first.y) < 1e-9 }
        }

        func centre(at time: Double) -> Point {
            guard let after = keyframes.firstIndex(where: { $0.time > time }) else { return keyframes.last!.centre }
            guard after > 0 else { return keyframes[0].centre }
            let a = keyframes[after - 1], b = keyframes[after]
            return Point.interpolate(from: a.centre, to: b.centre, fraction: (time - a.time) / (b.time - a.time))
        }
    }

    /// The window's size as fractions of the upright picture.
    public var window: Size
    public var shots: [Shot]

    public init(window: Size, shots: [Shot]) {
        self.window = window
        self.shots = shots
    }

    /// The window's centre at source time `time`.
    public func centre(at time: Double) -> Point {
        let shot = shots.last { $0.range.lowerBound <= time } ?? shots.first
        return shot?.centre(at: time) ?? Point(x: 0.5, y: 0.5)
    }

    /// The window at `time`, normalised.
    public func window(at time: Double) -> Rect {
        let c = centre(at: time)
        return Rect(x: c.x - window.width / 2, y: c.y - window.height / 2, width: window.width, height: window.height)
    }
}
