/// Which conditions the coordinator's statements are in — the database away, or an error
/// the server answered (its SQLSTATE and message), or a schema refused — so that each is
/// logged once when it begins and once when it ends, never per poll. Pure state: the
/// caller says what each operation (`pick`, `renew`, `farm`...) met and logs the events.
///
/// A server error is per operation: with a full disk reads succeed while writes fail, and
/// a read succeeding says nothing about the writes, so the condition ends only when no
/// operation meets it any more. Being away is not: any answer proves the server reachable.
package struct CoordinatorHealth: Sendable {
    package enum Condition: Hashable, Sendable, CustomStringConvertible {
        /// No answer: connection refused, timed out, closed.
        case unreachable
        /// The server answered with an error: its SQLSTATE and primary message.
        case answered(sqlState: String, message: String)
        /// The schema is not what the migrations made, and dropcut will not repair it.
        case refusedSchema(String)

        package var description: String {
            switch self {
            case .unreachable: "unreachable"
            case let .answered(sqlState, message): "SQLSTATE \(sqlState): \(message)"
            case let .refusedSchema(reason): reason
            }
        }

        /// The condition a failed statement shows: server errors of the classes that mean the
        /// connection is going or gone (08 connection exception, 57P01–57P03 the server
        /// shutting down or starting up) are the server being away, not an answer.
        package static func of(sqlState: String?, message: String?) -> Condition {
            guard let sqlState, !sqlState.hasPrefix("08"), !["57P01", "57P02", "57P03"].contains(sqlState) else { return .unreachable }
            return .answered(sqlState: sqlState, message: message ?? "(no message)")
        }
    }

    package enum Event: Equatable, Sendable {
        case began(Condition)
        /// `lasted`: since it began, by the clock the caller passes.
        case ended(Condition, lasted: Duration)
    }

    /// Each operation's current condition, and since when each condition has been in force.
    private var byOperation: [String: Condition] = [:]
    private var since: [Condition: ContinuousClock.Instant] = [:]

    package init() {}

    /// Whether the server is away, as the last statements found.
    package var isUnreachable: Bool { since[.unreachable] != nil }

    /// The conditions in force, oldest first.
    package var conditions: [Condition] { since.sorted { $0.value < $1.value }.map(\.key) }

    /// `operation` met `condition`: began when no operation was in it; a condition the
    /// operation leaves for this one ends if no other holds it.
    package mutating func failed(_ operation: String, _ condition: Condition, at now: ContinuousClock.Instant) -> [Event] {
        var events: [Event] = []
        let previous = byOperation.updateValue(condition, forKey: operation)
        if condition != .unreachable, since[.unreachable] != nil {
            // An answer, even an error: the server is reachable.
            events += end(.unreachable, at: now)
        }
        if let previous, previous != condition { events += release(previous, at: now) }
        if since[condition] == nil {
            since[condition] = now
            events.append(.began(condition))
        }
        return events
    }

    /// `operation` succeeded: the condition it was in ends if no other holds it; being away
    /// ends whatever operation answered.
    package mutating func succeeded(_ operation: String, at now: ContinuousClock.Instant) -> [Event] {
        var events: [Event] = []
        if since[.unreachable] != nil { events += end(.unreachable, at: now) }
        if let previous = byOperation.removeValue(forKey: operation) { events += release(previous, at: now) }
        return events
    }

    /// Ends `condition` if no operation is in it any more.
    private mutating func release(_ condition: Condition, at now: ContinuousClock.Instant) -> [Event] {
        guard !byOperation.values.contains(condition) else { return [] }
        guard let began = since.removeValue(forKey: condition) else { return [] }
        return [.ended(condition, lasted: now - began)]
    }

    /// Ends `condition` for every operation.
    private mutating func end(_ condition: Condition, at now: ContinuousClock.Instant) -> [Event] {
        byOperation = byOperation.filter { $0.value != condition }
        guard let began = since.removeValue(forKey: condition) else { return [] }
        return [.ended(condition, lasted: now - began)]
    }
}
