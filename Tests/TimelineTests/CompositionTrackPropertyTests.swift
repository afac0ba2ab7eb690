import PropertyBased
import Testing
@testable import DropcutTimeline

/// One random edit, in milliseconds.
struct Edit: Sendable, CustomStringConvertible {
    enum Kind: Int, Sendable { case insert, insertEmpty, remove, scale }
    var kind: Kind
    var at: Int64        // target time
    var length: Int64    // range duration (> 0)
    var other: Int64     // insert: source start; scale: new duration (> 0)

    var description: String { "\(kind)(at: \(at)ms, length: \(length)ms, other: \(other)ms)" }
}

let edits = zip(Gen.int(in: 0...3), Gen.int64(in: 0...3000), Gen.int64(in: 1...2000), Gen.int64(in: 1...2000))
    .map { kind, at, length, other in Edit(kind: Edit.Kind(rawValue: kind)!, at: at, length: length, other: other) }

/// How far two computations of one time may differ once either had to be rounded.
let roundingTolerance = 1e-5

func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

/// What a track shows at a time: nothing (past the end), an empty segment, or a source time.
enum Shown: Equatable, CustomStringConvertible {
    case nothing, empty, source(MediaTime)
    var description: String {
        switch self {
        case .nothing: return "nothing"
        case .empty: return "empty"
        case let .source(time): return "source \(time.debugDescription)"
        }
    }
}

/// An independent model of AVMutableCompositionTrack edits: each edit is a function from
/// the new timeline's time to the old timeline's, composed over the edit history.
struct ReferenceTrack {
    var edits: [Edit] = []
    var ends: [MediaTime] = [.zero]

    mutating func apply(_ edit: Edit) {
        let end = ends.last!, a = ms(edit.at), d = ms(edit.length)
        switch edit.kind {
        case .insert, .insertEmpty: ends.append(MediaTime.max(end, a) + d)
        case .remove: ends.append(a >= end ? end : end - (MediaTime.min(a + d, end) - a))
        case .scale:
            if a >= end { ends.append(end) } else {
                let clamped = MediaTime.min(a + d, end)
                ends.append(end + ((clamped - a).multiplied(by: (ms(edit.other), d)) - (clamped - a)))
            }
        }
        edits.append(edit)
    }

    func shown(at x: MediaTime) -> Shown { shown(at: x, after: edits.count) }

    private func shown(at x: MediaTime, after count: Int) -> Shown {
        guard count > 0 else { return .nothing }
        let edit = edits[count - 1], end = ends[count], oldEnd = ends[count - 1]
        guard x < end else { return .nothing }
        let a = ms(edit.at), d = ms(edit.length)
        switch edit.kind {
        case .insert, .insertEmpty:
            if x < a { return x < oldEnd ? shown(at: x, after: count - 1) : .empty }
            if x < a + d { return edit.kind == .insert ? .source(ms(edit.other) + (x - a)) : .empty }
            return shown(at: x - d, after: count - 1)
        case .remove:
            if x < a { return shown(at: x, after: count - 1) }
            return shown(at: x + (MediaTime.min(a + d, oldEnd) - a), after: count - 1)
        case .scale:
            if x < a || a >= oldEnd { return shown(at: x, after: count - 1) }
            let clamped = MediaTime.min(a + d, oldEnd)
            let newLength = (clamped - a).multiplied(by: (ms(edit.other), d))
            if x < a + newLength { return shown(at: a + (x - a).multiplied(by: (d, ms(edit.other))), after: count - 1) }
            return shown(at: x - newLength + (clamped - a), after: count - 1)
        }
    }
}

@Suite struct CompositionTrackPropertyTests {
    static let tape = SourceTrack(asset: "tape.mov", trackID: 1, mediaType: .video, duration: 10_000)

    static func apply(_ edit: Edit, to track: inout CompositionTrack) throws {
        let r = TimeRange(start: ms(edit.at), duration: ms(edit.length))
        switch edit.kind {
        case .insert: try track.insert(TimeRange(start: ms(edit.other), duration: ms(edit.length)), of: tape, at: ms(edit.at))
        case .insertEmpty: try track.insertEmpty(r)
        case .remove: try track.remove(r)
        case .scale: try track.scale(r, toDuration: ms(edit.other))
        }
    }

    static func shown(_ track: CompositionTrack, at x: MediaTime) -> Shown {
        guard let segment = track.segment(at: x) else { return .nothing }
        guard let time = segment.sourceTime(forTargetTime: x) else { return .empty }
        return .source(time)
    }

    @Test func editsKeepTheTrackContiguousWithExactDurations() async throws {
        await propertyCheck(count: 300, input: edits.array(of: 1...12)) { history in
            var track = CompositionTrack(trackID: 1, mediaType: .video)
            var reference = ReferenceTrack()
            for edit in history {
                let before = track.end
                try Self.apply(edit, to: &track)
                reference.apply(edit)
                #expect(track.validate().isEmpty, "after \(edit): \(track.validate())")
                #expect(track.segments.first.map { $0.target.start == .zero } ?? true)
                let expectedEnd = reference.ends.last!
                if track.end.hasBeenRounded || expectedEnd.hasBeenRounded {
                    // Stacked scales can need a timescale past Int32; then both round to
                    // about a nanosecond, which extreme speed ratios magnify. 10 µs is
                    // still under half a sample at 48 kHz.
                    #expect(abs((track.end - expectedEnd).seconds) < roundingTolerance)
                    continue
                }
                #expect(track.end == expectedEnd, "after \(edit): end \(track.end.debugDescription)")
                // Duration arithmetic of each edit, exactly.
                switch edit.kind {
                case .insert, .insertEmpty:
                    #expect(track.end == MediaTime.max(before, ms(edit.at)) + ms(edit.length))
                case .remove:
                    #expect(track.end == before - (MediaTime.min(ms(edit.at + edit.length), before) - MediaTime.min(ms(edit.at), before)))
                case .scale where ms(edit.at + edit.length) <= before:
                    #expect(track.end == before + ms(edit.other) - ms(edit.length))
                case .scale:
                    break
                }
            }
        }
    }

    @Test func editsShowWhatTheReferenceModelShows() async throws {
        await propertyCheck(count: 300, input: edits.array(of: 1...10), Gen.int64(in: 0...999).array(of: 40)) { history, probes in
            var track = CompositionTrack(trackID: 1, mediaType: .video)
            var reference = ReferenceTrack()
            for edit in history {
                try Self.apply(edit, to: &track)
                reference.apply(edit)
            }
            // Probe the whole track and a little past its end.
            let span = track.end + ms(100)
            for probe in probes {
                let x = span.multiplied(by: probe, dividedBy: 1000, rounding: .down)
                let expected = reference.shown(at: x), actual = Self.shown(track, at: x)
                switch (expected, actual) {
                case let (.source(e), .source(a)):
                    if e.hasBeenRounded || a.hasBeenRounded {
                        #expect(abs((e - a).seconds) < roundingTolerance, "at \(x.debugDescription): \(a) vs \(e)")
                    } else {
                        #expect(e == a, "at \(x.debugDescription): \(a) vs \(e)")
                    }
                default:
                    // A probe within rounding distance of a rounded boundary may land on
                    // either side of it; anywhere else the two must agree.
                    let onRoundedBoundary = track.segments.contains { segment in
                        (segment.target.start.hasBeenRounded || segment.target.end.hasBeenRounded)
                            && min(abs((segment.target.start - x).seconds), abs((segment.target.end - x).seconds)) < roundingTolerance
                    }
                    #expect(expected == actual || onRoundedBoundary, "at \(x.debugDescription) after \(history)")
                }
            }
        }
    }

    @Test func segmentSpeedsAreSourceOverTarget() async throws {
        await propertyCheck(count: 200, input: edits.array(of: 1...8)) { history in
            var track = CompositionTrack(trackID: 1, mediaType: .video)
            for edit in history { try Self.apply(edit, to: &track) }
            for segment in track.segments {
                guard let source = segment.source else { continue }
                let ratio = try #require(segment.speedRatio)
                let expected = try #require(source.timeRange.duration.ratio(to: segment.target.duration))
                #expect(ratio == expected)
                // Mapping the target's start and end gives the source's start and end.
                #expect(segment.sourceTime(forTargetTime: segment.target.start) == source.timeRange.start)
                let endTime = try #require(segment.sourceTime(forTargetTime: segment.target.end))
                #expect(abs((endTime - source.timeRange.end).seconds) < roundingTolerance)
            }
        }
    }
}
