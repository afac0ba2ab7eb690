/// A value that can be interpolated linearly between two keyframes.
public protocol Interpolatable: Sendable, Hashable {
    /// The value `fraction` (0...1) of the way from `start` to `end`.
    static func interpolate(from start: Self, to end: Self, fraction: Double) -> Self
    /// A short deterministic rendering for timeline descriptions.
    var timelineDescription: String { get }
}

extension Double: Interpolatable {
    public static func interpolate(from start: Double, to end: Double, fraction: Double) -> Double {
        start + (end - start) * fraction
    }
    public var timelineDescription: String { formatFixed(self, decimals: 2) }
}

/// Why a keyframe was refused. The ramp is left unchanged.
public enum RampError: Error, Hashable, Sendable {
    case invalidTime(MediaTime)
    case invalidTimeRange(TimeRange)
    /// The new keyframe falls inside, or shares a start with, an existing ramp over `existing`.
    case overlapsRamp(existing: TimeRange)
}

/// A value over composition time made of set points and linear ramps, with the semantics
/// of AVFoundation's `setVolume(_:at:)` / `setVolumeRamp(from:to:timeRange:)` and the
/// layer-instruction opacity, transform and crop setters:
///
/// - before the first keyframe the value is `defaultValue` (volume and opacity 1.0);
/// - `set(v, at: t)` makes the value `v` from `t` on;
/// - `setRamp(from: a, to: b, range:)` interpolates linearly over `range`, then holds `b`.
public struct Ramp<Value: Interpolatable>: Sendable, Hashable {
    /// One keyframe.
    public enum Keyframe: Sendable, Hashable {
        case set(Value, at: MediaTime)
        case ramp(from: Value, to: Value, range: TimeRange)

        public var start: MediaTime {
            switch self {
            case let .set(_, time): return time
            case let .ramp(_, _, range): return range.start
            }
        }
    }

    public let defaultValue: Value
    /// Keyframes ordered by start time.
    public private(set) var keyframes: [Keyframe] = []

    public init(defaultValue: Value) {
        self.defaultValue = defaultValue
    }

    /// The value is `value` from `time` on (until a later keyframe). Replaces a set point
    /// at the same time.
    public mutating func set(_ value: Value, at time: MediaTime) throws(RampError) {
        guard time.isNumeric else { throw .invalidTime(time) }
        try insert(.set(value, at: time), covering: TimeRange(start: time, duration: .zero))
    }

    /// The value goes linearly from `start` to `end` over `range` and holds `end` after it.
    public mutating func setRamp(from start: Value, to end: Value, range: TimeRange) throws(RampError) {
        guard range.isValid, range.duration > .zero else { throw .invalidTimeRange(range) }
        try insert(.ramp(from: start, to: end, range: range), covering: range)
    }

    /// The value at `time`.
    public func value(at time: MediaTime) -> Value {
        guard let i = lastKeyframeIndex(startingAtOrBefore: time) else { return defaultValue }
        switch keyframes[i] {
        case let .set(value, _):
            return value
        case let .ramp(from, to, range):
            return Self.value(from: from, to: to, over: range, at: time)
        }
    }

    /// A ramp's value at `time`: `from` at its start, `to` from its end on.
    static func value(from: Value, to: Value, over range: TimeRange, at time: MediaTime) -> Value {
        guard time < range.end else { return to }
        let fraction = (time - range.start).ratio(to: range.duration).map { Double($0.numerator) / Double($0.denominator) } ?? 0
        return Value.interpolate(from: from, to: to, fraction: fraction)
    }

    /// True when no keyframe was ever set.
    public var isConstantDefault: Bool { keyframes.isEmpty }

    /// The corners of the value's graph from zero to `end` (a step is two points at one
    /// time): enough to draw it exactly as a polyline.
    public func breakpoints(until end: MediaTime) -> [(time: MediaTime, value: Value)] {
        var points: [(time: MediaTime, value: Value)] = [(.zero, value(at: .zero))]
        func add(_ time: MediaTime, _ value: Value) {
            if let last = points.last, last.time == time, last.value == value { return }
            points.append((time, value))
        }
        var current = points[0].value
        for keyframe in keyframes where keyframe.start < end {
            switch keyframe {
            case let .set(value, time):
                if time > .zero { add(time, current); add(time, value) }
                current = value
            case let .ramp(from, to, range):
                if range.start > .zero { add(range.start, current); add(range.start, from) }
                if range.end > .zero { add(MediaTime.min(range.end, end), value(at: MediaTime.min(range.end, end))) }
                current = to
            }
        }
        add(end, value(at: end))
        return points
    }

    private func lastKeyframeIndex(startingAtOrBefore time: MediaTime) -> Int? {
        var low = 0, high = keyframes.count
        while low < high {
            let mid = (low + high) / 2
            if keyframes[mid].start <= time { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }

    private mutating func insert(_ keyframe: Keyframe, covering span: TimeRange) throws(RampError) {
        for (i, existing) in keyframes.enumerated() {
            switch existing {
            case let .ramp(_, _, range):
                // A new keyframe may touch a ramp's end, never start with it or fall inside it.
                let startsInside = range.start <= span.start && span.start < range.end
                let coversStart = span.start < range.start && range.start < span.end
                if startsInside || coversStart { throw .overlapsRamp(existing: range) }
            case let .set(_, time):
                if case .set = keyframe, time == span.start {
                    keyframes[i] = keyframe
                    return
                }
                if span.start < time && time < span.end { throw .overlapsRamp(existing: span) }
                if case .ramp = keyframe, time == span.start { throw .overlapsRamp(existing: span) }
            }
        }
        let index = keyframes.firstIndex { $0.start > keyframe.start } ?? keyframes.count
        keyframes.insert(keyframe, at: index)
    }
}

extension Ramp.Keyframe: CustomStringConvertible {
    /// `1.00 at 0.000` or `ramp [8.000,+2.000] 0.00 -> 1.00`.
    public var description: String {
        switch self {
        case let .set(value, time): return "\(value.timelineDescription) at \(time)"
        case let .ramp(from, to, range): return "ramp \(range) \(from.timelineDescription) -> \(to.timelineDescription)"
        }
    }
}
