/// A `Duration` as seconds, for timestamps, messages and the config's `Double` fields.
extension Duration {
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
