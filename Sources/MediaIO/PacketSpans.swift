import Timeline

/// The time each stream's packets cover, gathered packet by packet as they are read (no
/// decoding): from the earliest timestamp to the end of the latest packet, in ticks of
/// each stream's time base. What a duration is measured from when a header's cannot be
/// trusted.
///
/// Overflow-checked throughout: a damaged packet may carry any timestamp and any duration
/// (one whose end does not fit counts as ending where it starts).
struct PacketSpans {
    private var first: [Int: Int64] = [:]
    private var end: [Int: Int64] = [:]

    /// Adds a packet of stream `index` presented at `start` (pts, or dts when it has no
    /// pts) lasting `duration` ticks (0 or less when unknown: it then ends where it starts).
    mutating func add(stream index: Int, start: Int64, duration: Int64) {
        let stop = start.addingReportingOverflow(max(0, duration))
        first[index] = min(first[index] ?? start, start)
        end[index] = max(end[index] ?? start, stop.overflow ? start : stop.partialValue)
    }

    /// Where the latest packet of stream `index` ends, in its ticks; nil before any.
    func endTicks(of index: Int) -> Int64? {
        end[index]
    }

    /// How many ticks stream `index` spans; nil when it has no packets or spans none.
    func durationTicks(of index: Int) -> Int64? {
        guard let start = first[index], let stop = end[index] else { return nil }
        let (ticks, overflow) = stop.subtractingReportingOverflow(start)
        return overflow || ticks <= 0 ? nil : ticks
    }

    /// The streams seen, in no particular order.
    var streams: Dictionary<Int, Int64>.Keys { end.keys }
}
