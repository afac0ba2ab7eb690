import DropcutTimeline

/// The time each stream's packets cover, gathered packet by packet as they are read (no
/// decoding): what a duration is measured from when a header's cannot be trusted. In
/// ticks of each stream's time base.
///
/// A measured length must be one the content supports, not one timestamp's say-so. A
/// single damaged composition offset (`ctts`) or sample delta puts one frame of a 2 s
/// clip at 2185 s, or stretches every frame an hour apart; the span of the raw
/// timestamps then made compositions of 65 000 (or 5.7 million) frames and renders that
/// ran for hours on a few kilobytes of file. So the packets are grouped into runs, a new
/// run starting where the next packet begins more than `gap` after everything before it
/// ended (a hold stated by a packet's duration is no gap); the stream spans the run with
/// the most packets, and the runs beside it that hold a fair share of them (`isContent`)
/// after a pause no longer than `pauseSeconds` or than the content so far — a recording
/// that stalled for a while and resumed — while a stray packet or two far away, or a
/// part shifted hours away, is damage and counts for nothing.
///
/// Overflow-checked throughout: a damaged packet may carry any timestamp and any duration
/// (one whose end does not fit counts as ending where it starts).
struct PacketSpans {
    private var packets: [Int: [(start: Int64, end: Int64)]] = [:]

    /// Uncovered time between packets that starts a new run, in seconds: longer than any
    /// frame or audio packet lasts, shorter than a wrong timestamp usually is off.
    static let gapSeconds: Int64 = 1

    /// Adds a packet of stream `index` presented at `start` (pts, or dts when it has no
    /// pts) lasting `duration` ticks (0 or less when unknown: it then ends where it starts).
    mutating func add(stream index: Int, start: Int64, duration: Int64) {
        let stop = start.addingReportingOverflow(max(0, duration))
        packets[index, default: []].append((start, stop.overflow ? start : stop.partialValue))
    }

    /// The ticks stream `index`'s content covers, `[start, end)` (see the type); nil
    /// before any packet. `timeBase` is the stream's, to tell a gap in its ticks.
    ///
    /// `trustingDurations: false` — for a stream whose header and packets disagree, being
    /// measured — lets no packet last longer than `holdLimit`: one damaged sample delta
    /// (`stts`) in a phone's variable-rate clip makes one frame last 4369 s with the
    /// next ones after it, a hold no gap shows. Where the header agrees with the packets
    /// (`DurationCheck`'s look at the tail), a long hold is what the file means.
    func span(of index: Int, timeBase: MediaTime, trustingDurations: Bool = true) -> (start: Int64, end: Int64)? {
        guard var list = packets[index], !list.isEmpty else { return nil }
        list.sort { $0.start < $1.start }
        // The time base is num/den ticks a second (num is 1 for nearly every container).
        let gapTicks = Self.gapSeconds * Int64(max(1, timeBase.timescale)) / max(1, timeBase.value)
        if !trustingDurations {
            let limit = Self.holdLimit(list, gap: gapTicks)
            for n in list.indices where Self.length(list[n].start, list[n].end) > limit {
                list[n].end = list[n].start + limit
            }
        }
        var runs: [(start: Int64, end: Int64, count: Int)] = []
        for packet in list {
            if let last = runs.last, !Self.breaks(after: last.end, at: packet.start, gap: gapTicks) {
                runs[runs.count - 1].end = max(last.end, packet.end)
                runs[runs.count - 1].count += 1
            } else {
                runs.append((packet.start, max(packet.start, packet.end), 1))
            }
        }
        // The earliest of the largest runs (a stream spread one packet an hour has no
        // run larger than one), widened by the runs on either side that are content and
        // lie no further from it than `pauseTicks` (below).
        let main = runs.indices.max { runs[$0].count < runs[$1].count || (runs[$0].count == runs[$1].count && $0 > $1) }!
        let pauseTicks = Self.pauseSeconds * Int64(max(1, timeBase.timescale)) / max(1, timeBase.value)
        var span = (start: runs[main].start, end: runs[main].end)
        var covered = Self.length(runs[main].start, runs[main].end)
        for index in runs.indices[(main + 1)...] where Self.isContent(runs[index].count, of: list.count) {
            guard Self.length(span.end, runs[index].start) <= max(pauseTicks, covered) else { break }
            span.end = runs[index].end
            covered = Self.sum(covered, Self.length(runs[index].start, runs[index].end))
        }
        for index in runs.indices[..<main].reversed() where Self.isContent(runs[index].count, of: list.count) {
            guard Self.length(runs[index].end, span.start) <= max(pauseTicks, covered) else { break }
            span.start = runs[index].start
            covered = Self.sum(covered, Self.length(runs[index].start, runs[index].end))
        }
        return span
    }

    /// The longest pause between runs of content that still counts as part of the stream
    /// whatever its length, in seconds; a longer one must be no longer than the content
    /// around it. A damaged sample delta shifting the rest of a 2 s clip by 2184 s makes
    /// a "pause" of 2184 s after 4 frames: the content is the run of the other 56.
    static let pauseSeconds: Int64 = 10

    /// The longest a packet may last when durations are not trusted: 10 times the
    /// stream's median packet duration (a slideshow's 5 s slides keep theirs), at least
    /// `gap` (a second). Fits: a packet's end fits, so does its start plus less.
    private static func holdLimit(_ list: [(start: Int64, end: Int64)], gap: Int64) -> Int64 {
        let durations = list.map { length($0.start, $0.end) }.sorted()
        let median = durations[durations.count / 2]
        return max(gap, median > Int64.max / 10 ? Int64.max : median * 10)
    }

    /// `a + b`, or `Int64.max` when that does not fit.
    private static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }

    /// `end - start` in ticks; `Int64.max` when that does not fit (timestamps far apart).
    private static func length(_ start: Int64, _ end: Int64) -> Int64 {
        let (ticks, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? .max : max(0, ticks)
    }

    /// True when a packet at `start` opens a new run after packets ending at `end`.
    private static func breaks(after end: Int64, at start: Int64, gap: Int64) -> Bool {
        let (distance, overflow) = start.subtractingReportingOverflow(end)
        return overflow || distance > gap
    }

    /// Whether a run of `count` of a stream's `total` packets is content rather than
    /// stray damaged timestamps: at least 3 packets and 5 % of them.
    static func isContent(_ count: Int, of total: Int) -> Bool {
        count >= 3 && count * 20 >= total
    }

    /// Where the content of stream `index` read so far ends, in its ticks; nil before any.
    func endTicks(of index: Int, timeBase: MediaTime) -> Int64? {
        span(of: index, timeBase: timeBase)?.end
    }

    /// True when the content of stream `index` ends with a packet of known duration: its
    /// end is where the last frame stops being shown, not only where it starts.
    func endIsTimed(of index: Int, timeBase: MediaTime) -> Bool {
        guard let end = span(of: index, timeBase: timeBase)?.end, let list = packets[index] else { return false }
        return list.contains { $0.end == end && $0.end > $0.start }
    }

    /// How many ticks stream `index`'s content spans; nil when it has no packets or spans
    /// none. `trustingDurations` as for `span`.
    func durationTicks(of index: Int, timeBase: MediaTime, trustingDurations: Bool = true) -> Int64? {
        guard let span = span(of: index, timeBase: timeBase, trustingDurations: trustingDurations) else { return nil }
        let (ticks, overflow) = span.end.subtractingReportingOverflow(span.start)
        return overflow || ticks <= 0 ? nil : ticks
    }

    /// How many packets of stream `index` were read.
    func packetCount(of index: Int) -> Int {
        packets[index]?.count ?? 0
    }

    /// The streams seen, in no particular order.
    var streams: Dictionary<Int, [(start: Int64, end: Int64)]>.Keys { packets.keys }
}
