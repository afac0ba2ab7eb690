/// How a composition's video tracks become frames (AVMutableVideoComposition): the canvas
/// size, the output frame rate, and instructions that tile `[0, duration)`.
public struct VideoComposition: Sendable, Hashable {
    public var renderSize: PixelSize
    /// The time between output frames (1/30 for 30 fps).
    public var frameDuration: MediaTime
    /// Background for instructions that do not set their own.
    public var backgroundColor: Color
    /// In time order, without gap or overlap.
    public var instructions: [VideoCompositionInstruction]

    public init(renderSize: PixelSize, frameDuration: MediaTime, backgroundColor: Color = .black,
                instructions: [VideoCompositionInstruction] = []) {
        self.renderSize = renderSize
        self.frameDuration = frameDuration
        self.backgroundColor = backgroundColor
        self.instructions = instructions
    }

    /// The instruction in force at `time`, found by binary search over the (ordered)
    /// instructions.
    public func instruction(at time: MediaTime) -> VideoCompositionInstruction? {
        var low = 0, high = instructions.count
        while low < high {
            let mid = (low + high) / 2
            if instructions[mid].timeRange.end <= time { low = mid + 1 } else { high = mid }
        }
        return low < instructions.count && instructions[low].timeRange.contains(time) ? instructions[low] : nil
    }

    /// Everything wrong with this video composition for `composition`, in the categories of
    /// AVVideoCompositionValidationHandling; empty when valid.
    public func validate(for composition: Composition) -> [VideoCompositionValidationError] {
        var problems: [VideoCompositionValidationError] = []
        if renderSize.width <= 0 || renderSize.height <= 0 { problems.append(.invalidValue(key: "renderSize")) }
        if !frameDuration.isNumeric || frameDuration <= .zero { problems.append(.invalidValue(key: "frameDuration")) }
        if !backgroundColor.isValid { problems.append(.invalidValue(key: "backgroundColor")) }

        let duration = composition.duration
        let videoTracks = Set(composition.tracks(of: .video).map(\.trackID))
        var covered = MediaTime.zero
        for (i, instruction) in instructions.enumerated() {
            let range = instruction.timeRange
            if !range.isValid || range.duration <= .zero || range.start < covered || range.end > duration {
                // Empty, negative, overlapping, out of order, or past the composition's end.
                problems.append(.invalidTimeRange(instruction: i, range: range))
            } else if range.start > covered {
                problems.append(.emptyTimeRange(TimeRange(start: covered, end: range.start)))
            }
            if range.isValid, range.end > covered { covered = MediaTime.min(range.end, MediaTime.max(duration, covered)) }
            if let background = instruction.backgroundColor, !background.isValid {
                problems.append(.invalidValue(key: "backgroundColor"))
            }
            for (j, layer) in instruction.layerInstructions.enumerated() {
                if !videoTracks.contains(layer.trackID) {
                    problems.append(.invalidTrackID(instruction: i, layer: j, trackID: layer.trackID))
                }
                if layer.opacity.keyframes.contains(where: { !Self.isUnitOpacity($0) }) {
                    problems.append(.invalidValue(key: "opacity"))
                }
            }
        }
        if covered < duration {
            problems.append(.emptyTimeRange(TimeRange(start: covered, end: duration)))
        }
        return problems
    }

    private static func isUnitOpacity(_ keyframe: Ramp<Double>.Keyframe) -> Bool {
        switch keyframe {
        case let .set(value, _): return (0...1).contains(value)
        case let .ramp(from, to, _): return (0...1).contains(from) && (0...1).contains(to)
        }
    }
}

/// A problem found by `VideoComposition.validate(for:)`, one per
/// AVVideoCompositionValidationHandling callback.
public enum VideoCompositionValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Part of `[0, duration)` that no instruction covers.
    case emptyTimeRange(TimeRange)
    /// Instruction `instruction` has an empty, invalid, overlapping, out-of-order range, or
    /// one that extends past the composition's end.
    case invalidTimeRange(instruction: Int, range: TimeRange)
    /// A property with an impossible value (`renderSize`, `frameDuration`, `opacity`, ...).
    case invalidValue(key: String)
    /// Layer `layer` of instruction `instruction` names no video track of the composition.
    case invalidTrackID(instruction: Int, layer: Int, trackID: TrackID)

    public var description: String {
        switch self {
        case let .emptyTimeRange(range): return "no instruction covers \(range)"
        case let .invalidTimeRange(i, range): return "instruction \(i) has an invalid time range \(range)"
        case let .invalidValue(key): return "invalid value for \(key)"
        case let .invalidTrackID(i, j, id): return "instruction \(i) layer \(j) names track \(id), which is not a video track of the composition"
        }
    }
}
