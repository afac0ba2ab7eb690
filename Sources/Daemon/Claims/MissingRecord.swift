/// Why the record of a claim's holder could not be had (no lease, a lease or stored
/// record that does not parse): a taker then knows nothing of what was done with the
/// clip, and moves it to failed/ rather than render it twice.
package struct MissingRecord: Error, Sendable {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
}
