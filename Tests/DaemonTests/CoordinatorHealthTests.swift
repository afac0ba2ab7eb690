import Testing
@testable import DropcutDaemon

/// `CoordinatorHealth`: each condition begins once and ends once, however many
/// operations meet it and however often.
@Suite struct CoordinatorHealthTests {
    typealias Condition = CoordinatorHealth.Condition
    static let denied = Condition.answered(sqlState: "42501", message: "permission denied for table dropcut_jobs")
    static let full = Condition.answered(sqlState: "53100", message: "could not extend file")

    /// Begins and ends, as names, dropping the durations.
    static func names(_ events: [CoordinatorHealth.Event]) -> [String] {
        events.map { event in
            switch event {
            case let .began(condition): "began \(condition)"
            case let .ended(condition, _): "ended \(condition)"
            }
        }
    }

    @Test func aConditionMetAtEveryPollIsLoggedOnceAndItsEndOnce() {
        var health = CoordinatorHealth()
        let t = ContinuousClock.now
        var log: [String] = []
        for poll in 0..<120 {
            for operation in ["pick", "renew", "farm"] {
                log += Self.names(health.failed(operation, Self.denied, at: t + .milliseconds(100 * poll)))
            }
        }
        #expect(log == ["began \(Self.denied)"])
        log += Self.names(health.succeeded("pick", at: t + .seconds(13)))
        log += Self.names(health.succeeded("renew", at: t + .seconds(13)))
        #expect(log.count == 1, "still met by farm: not over")
        let last = health.succeeded("farm", at: t + .seconds(14))
        #expect(last == [.ended(Self.denied, lasted: .seconds(14))])
        #expect(health.conditions.isEmpty)
    }

    @Test func writesFailingWhileReadsSucceedIsOneConditionNotAFlapping() {
        var health = CoordinatorHealth()
        let t = ContinuousClock.now
        var log: [String] = []
        for poll in 0..<50 {
            log += Self.names(health.failed("pick", Self.full, at: t + .milliseconds(100 * poll)))
            log += Self.names(health.succeeded("farm", at: t + .milliseconds(100 * poll + 50)))
        }
        #expect(log == ["began \(Self.full)"])
    }

    @Test func aChangedConditionIsLoggedAgainAndTheOldOneEnds() {
        var health = CoordinatorHealth()
        let t = ContinuousClock.now
        var log = Self.names(health.failed("pick", Self.denied, at: t))
        log += Self.names(health.failed("pick", Self.full, at: t + .seconds(1)))
        log += Self.names(health.failed("pick", Self.full, at: t + .seconds(2)))
        #expect(log == ["began \(Self.denied)", "ended \(Self.denied)", "began \(Self.full)"])
    }

    @Test func beingAwayEndsAtAnyAnswerAndAnAnswerEndsIt() {
        var health = CoordinatorHealth()
        let t = ContinuousClock.now
        var log = Self.names(health.failed("fence", .unreachable, at: t))
        log += Self.names(health.failed("pick", .unreachable, at: t + .seconds(1)))
        #expect(health.isUnreachable)
        // The fence is not tried again for a while; the pick's success ends the outage.
        log += Self.names(health.succeeded("pick", at: t + .seconds(2)))
        #expect(!health.isUnreachable)
        // Away again, then an error answered: the server is back, and the error begins.
        log += Self.names(health.failed("pick", .unreachable, at: t + .seconds(3)))
        log += Self.names(health.failed("renew", Self.denied, at: t + .seconds(4)))
        #expect(log == ["began unreachable", "ended unreachable", "began unreachable", "ended unreachable", "began \(Self.denied)"])
    }

    @Test func connectionClassesAreBeingAwayAndTheRestAnswers() {
        #expect(Condition.of(sqlState: nil, message: "could not connect") == .unreachable)
        #expect(Condition.of(sqlState: "08006", message: "connection failure") == .unreachable)
        for state in ["57P01", "57P02", "57P03"] { #expect(Condition.of(sqlState: state, message: "shutting down") == .unreachable) }
        #expect(Condition.of(sqlState: "42P01", message: "relation \"dropcut_jobs\" does not exist")
                == .answered(sqlState: "42P01", message: "relation \"dropcut_jobs\" does not exist"))
        #expect(Condition.of(sqlState: "53100", message: nil) == .answered(sqlState: "53100", message: "(no message)"))
    }
}
