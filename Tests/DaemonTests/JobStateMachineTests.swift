import Foundation
import Logging
import Testing
import TestSupport
@testable import DropcutDaemon

/// The job record's state machine, every (state, event) pair: the state it goes to and the
/// actions, in order — or the refusal — against a table written out here by hand from
/// the job's protocol (docs/daemon.md, docs/design.md), not computed the way the machine
/// computes it.
@Suite struct JobStateMachineTests {
    typealias State = JobRecord.State
    typealias Event = JobStateMachine.Event
    typealias Transition = JobStateMachine.Transition

    static let renders: [State] = [.claiming, .claimed, .preparing, .rendering, .waiting]
    static let later: [State] = [.committing, .committed, .failing]
    static let unfinished = renders + later
    static let final: [State] = [.done, .failed, .abandoned]

    /// Every transition that may happen; any pair not here is refused.
    static let expected: [String: Transition] = {
        var table: [String: Transition] = [:]
        func allow(_ state: State, _ event: Event, _ to: State, _ actions: [JobStateMachine.Action]) {
            table[key(state, event)] = Transition(to, actions)
        }
        allow(.claiming, .clipClaimed, .claimed, [.save])
        for state in renders { allow(state, .attemptStarted, .preparing, [.countAttempt, .save]) }
        allow(.preparing, .workerStarted, .rendering, [.save])
        allow(.rendering, .rendered, .committing, [.save])
        allow(.committing, .outputVanished, .claimed, [.save])
        allow(.committing, .published, .committed, [.save])
        allow(.committed, .archived, .done, [.save, .endClaim])
        for state in unfinished { allow(state, .failureDecided, .failing, [.save]) }
        allow(.failing, .movedToFailed, .failed, [.save, .endClaim])
        for state in renders {
            allow(state, .retryScheduled(transient: true), .waiting, [.save])
            allow(state, .retryScheduled(transient: false), .waiting, [.save])
        }
        for state in later {
            allow(state, .retryScheduled(transient: true), state, [.countFinishRetry, .save])
            allow(state, .retryScheduled(transient: false), state, [.save])
        }
        for state in State.allCases {
            if state == .preparing || state == .rendering {
                allow(state, .interruptedByShutdown, .claimed, [.giveBackAttempt, .save])
            } else {
                allow(state, .interruptedByShutdown, state, [])
            }
        }
        for state in unfinished { allow(state, .claimLost, .abandoned, [.saveLocally]) }
        // Recovery and takeover: what the files showed, as events.
        for state in renders {
            allow(state, .recovered, state == .preparing || state == .rendering ? .claimed : state, [.save])
            allow(state, .adopted(.toRender), .claimed, [.save])
        }
        allow(.committing, .adopted(.published), .committed, [.save])
        allow(.committing, .adopted(.outOfSight), .claimed, [.giveBackAttempt, .save])
        return table
    }()

    static func key(_ state: State, _ event: Event) -> String { "\(state.rawValue) \(event)" }

    @Test func everyStateAndEventIsAsTheTableSays() {
        #expect(State.allCases.count == 11 && Event.allCases.count == 17)
        var allowed = 0, refused = 0
        for state in State.allCases {
            for event in Event.allCases {
                let want = Self.expected[Self.key(state, event)]
                do throws(JobStateMachine.Refusal) {
                    let got = try JobStateMachine.transition(from: state, on: event)
                    #expect(got == want, "\(state) + \(event): \(got), expected \(want.map { "\($0)" } ?? "a refusal")")
                    allowed += 1
                } catch {
                    #expect(want == nil, "\(state) + \(event) refused, expected \(want.map { "\($0)" } ?? "")")
                    #expect(error == JobStateMachine.Refusal(state: state, event: event))
                    refused += 1
                }
            }
        }
        // Every pair was looked at, and the table's count agrees with what the machine allowed.
        #expect(allowed + refused == 187)
        #expect(allowed == Self.expected.count, "\(allowed) transitions allowed, the table has \(Self.expected.count)")
    }

    /// A job that ended takes no step: only the shutdown's no-op is not refused.
    @Test func endedJobsStayEnded() throws {
        for state in Self.final {
            for event in Event.allCases where event != .interruptedByShutdown {
                #expect(throws: JobStateMachine.Refusal.self, "\(state) + \(event)") {
                    try JobStateMachine.transition(from: state, on: event)
                }
            }
            #expect(try JobStateMachine.transition(from: state, on: .interruptedByShutdown) == Transition(state, []))
        }
    }

    /// Every state is reached from `claiming`, and every path ends in one of the final
    /// states (the machine has no dead ends for an unfinished job).
    @Test func everyStateIsReachableAndEveryUnfinishedJobCanEnd() {
        var reached: Set<State> = [.claiming], frontier: [State] = [.claiming]
        while let state = frontier.popLast() {
            for event in Event.allCases {
                guard let next = try? JobStateMachine.transition(from: state, on: event).state else { continue }
                if reached.insert(next).inserted { frontier.append(next) }
            }
        }
        #expect(reached == Set(State.allCases))
        for state in Self.unfinished {
            let ends = Event.allCases.compactMap { try? JobStateMachine.transition(from: state, on: $0).state }
            #expect(ends.contains(.failing) && ends.contains(.abandoned), "\(state) can neither fail nor be given up")
        }
    }

    /// Where a job resumes: a render starts over, a later step is taken where it stopped.
    @Test func eachStateResumesWithItsStep() {
        let steps: [State: JobStateMachine.Step] = [
            .claiming: .render, .claimed: .render, .preparing: .render, .rendering: .render, .waiting: .render,
            .committing: .publish, .committed: .archive, .failing: .moveToFailed,
            .done: .none, .failed: .none, .abandoned: .none,
        ]
        for state in State.allCases { #expect(JobStateMachine.step(for: state) == steps[state], "\(state)") }
    }

    /// The runner performs the actions: an attempt counted and written, a refusal changing
    /// nothing (neither the record nor the file).
    @Test func theRunnerPerformsWhatTheMachineSays() throws {
        let dir = try TemporaryDirectory()
        let store = JobStore(stateDirectory: dir.file("state"))
        try store.prepare()
        let runner = JobRunner(store: store, logger: Logger(label: "test"),
                               keeper: LeaseKeeper(owner: HostIdentity(host: "a", machineID: "m", bootID: "b", pid: 1)),
                               metrics: DaemonMetrics(version: "test", workers: 1))
        let folder = FolderConfig(name: "f", inbox: dir.file("in"), outbox: dir.file("out"), failed: dir.file("failed"))
        var record = JobRecord(id: JobRecord.newID(), folder: "f", input: "clip.mp4", sidecars: [], state: .claimed)
        try runner.advance(&record, .attemptStarted, folder: folder)
        #expect(record.state == .preparing && record.attempts == 1)
        #expect(store.load().records.first { $0.id == record.id }?.state == .preparing)
        let before = record
        #expect(throws: JobStateMachine.Refusal.self) { try runner.advance(&record, .archived, folder: folder) }
        #expect(record == before)
        #expect(store.load().records.first { $0.id == record.id }?.state == .preparing)
        try runner.advance(&record, .retryScheduled(transient: true), folder: folder)
        #expect(record.state == .waiting && record.finishRetries == nil)
        try runner.advance(&record, .failureDecided, folder: folder)
        try runner.advance(&record, .retryScheduled(transient: true), folder: folder)
        #expect(record.state == .failing && record.finishRetries == 1)
    }

    /// What a taker does by its holder's state: every state has its plan, and only a job
    /// its holder ended is merely removed.
    @Test func aTakerPlansByItsHoldersState() {
        let plans: [State: JobStateMachine.TakeoverPlan] = [
            .claiming: .claimIfClipThere, .claimed: .renderAgain, .waiting: .renderAgain,
            .preparing: .interruptedAttempt, .rendering: .interruptedAttempt, .committing: .publish,
            .committed: .finishAsItStopped, .failing: .finishAsItStopped,
            .done: .remove, .failed: .remove, .abandoned: .remove,
        ]
        for state in State.allCases { #expect(JobStateMachine.takeover(of: state) == plans[state], "\(state)") }
    }
}
