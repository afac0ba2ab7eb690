/// A `Duration` as seconds, for timestamps, messages and the config's `Double` fields.
extension Duration {
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded down, at least 1: what C timeouts (libcurl, libpq,
    /// SQL intervals) take.
    package var wholeMilliseconds: Int64 {
        max(1, components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
