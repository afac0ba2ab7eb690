/// A property animated through keyframes, as a `CAKeyframeAnimation`: values at times from
/// the animation's start, each segment paced by its own `TimingFunction`, the whole pass
/// repeated `repeatCount` times (or forever), each pass played forward then backward when
/// it `autoreverses`. Before its start the first value shows, after its last pass the
/// value it ended on (a fill mode of `both`).
public struct KeyframeAnimation<Value: Interpolatable>: Sendable, Hashable {
    /// One keyframe: `value` at `time` after the animation's start; `timing` paces the
    /// segment from here to the next keyframe.
    public struct Keyframe: Sendable, Hashable {
        public var time: MediaTime
        public var value: Value
        public var timing: TimingFunction
        public init(time: MediaTime, value: Value, timing: TimingFunction = .linear) {
            self.time = time
            self.value = value
            self.timing = timing
        }
    }

    /// How many passes play.
    public enum RepeatCount: Sendable, Hashable {
        case times(Int)
        case forever
    }

    /// Why keyframes were refused.
    public enum Error: Swift.Error, Sendable, Hashable {
        case noKeyframes
        /// Times must be numeric, at least 0 and strictly increasing.
        case invalidTime(MediaTime)
        case invalidRepeatCount(Int)
    }

    /// Ordered by strictly increasing time, the first at or after zero.
    public let keyframes: [Keyframe]
    /// When the animation starts, in composition time.
    public var beginTime: MediaTime
    public let repeatCount: RepeatCount
    public let autoreverses: Bool

    public init(keyframes: [Keyframe], beginTime: MediaTime = .zero, repeatCount: RepeatCount = .times(1),
                autoreverses: Bool = false) throws(Error) {
        guard !keyframes.isEmpty else { throw .noKeyframes }
        var previous: MediaTime?
        for keyframe in keyframes {
            guard keyframe.time.isNumeric, keyframe.time >= .zero, previous.map({ keyframe.time > $0 }) ?? true else {
                throw .invalidTime(keyframe.time)
            }
            previous = keyframe.time
        }
        if case let .times(n) = repeatCount, n < 1 { throw .invalidRepeatCount(n) }
        self.keyframes = keyframes
        self.beginTime = beginTime
        self.repeatCount = repeatCount
        self.autoreverses = autoreverses
    }

    /// One pass, forward: the last keyframe's time.
    public var duration: MediaTime { keyframes[keyframes.count - 1].time }

    /// One cycle: a pass, and its way back when the animation autoreverses.
    public var period: MediaTime { autoreverses ? duration + duration : duration }

    /// The value at `time` (composition time).
    public func value(at time: MediaTime) -> Value {
        let local = time - beginTime
        guard local > .zero, duration > .zero else { return local > .zero ? keyframes[keyframes.count - 1].value : keyframes[0].value }
        guard let (numerator, denominator) = local.ratio(to: period) else { return keyframes[0].value }
        let cycle = numerator / denominator   // whole cycles elapsed, exactly
        if case let .times(n) = repeatCount, cycle >= Int128(n) {
            // Filled forward: where the last cycle ended (back at the start when reversing).
            return autoreverses ? keyframes[0].value : keyframes[keyframes.count - 1].value
        }
        var phase = local - period.multiplied(by: Int64(cycle), dividedBy: 1)
        if autoreverses, phase > duration { phase = period - phase }   // the way back mirrors the way out
        return value(atPhase: phase)
    }

    /// The value `phase` into one forward pass.
    func value(atPhase phase: MediaTime) -> Value {
        var low = 0, high = keyframes.count
        while low < high {
            let mid = (low + high) / 2
            if keyframes[mid].time <= phase { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return keyframes[0].value }
        guard low < keyframes.count else { return keyframes[keyframes.count - 1].value }
        let a = keyframes[low - 1], b = keyframes[low]
        let fraction = (phase - a.time).ratio(to: b.time - a.time).map { Double($0.numerator) / Double($0.denominator) } ?? 0
        return Value.interpolate(from: a.value, to: b.value, fraction: a.timing.progress(fraction))
    }
}

extension KeyframeAnimation: CustomStringConvertible {
    /// `0.00 @0.000 ease-in 1.00 @2.000, repeat forever, autoreverse`: keyframes with the
    /// timing of the segment between them, for `dropcut plan`.
    public var description: String {
        var text = ""
        for (i, keyframe) in keyframes.enumerated() {
            if i > 0 { text += " \(keyframes[i - 1].timing.rawValue) " }
            text += "\(keyframe.value.timelineDescription) @\(keyframe.time)"
        }
        switch repeatCount {
        case .forever: text += ", repeat forever"
        case let .times(n) where n > 1: text += ", repeat \(n)"
        case .times: break
        }
        if autoreverses { text += ", autoreverse" }
        return text
    }
}
