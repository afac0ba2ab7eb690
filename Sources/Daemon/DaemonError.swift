import Foundation

/// A start-up problem of the daemon itself (not of a clip).
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
