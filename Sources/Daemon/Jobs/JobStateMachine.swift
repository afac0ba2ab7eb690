/// The job record's life, as a pure state machine (as postgres-nio's connection state
/// machine is): an event and the state the record is in go in; the state it goes to and the
/// effects to perform, in order, come out — or a refusal, when the event cannot happen in
/// that state. It does no I/O and reads no clock: `JobRunner.advance` performs the actions,
/// and is the one place that moves a record from one state to another on a step of the job.
///
///     claiming ─clipClaimed→ claimed ─attemptStarted→ preparing ─workerStarted→ rendering
///     rendering ─rendered→ committing ─published→ committed ─archived→ done
///     committing ─outputVanished→ claimed (rendered again)
///     any unfinished ─failureDecided→ failing ─movedToFailed→ failed
///     any unfinished ─claimLost→ abandoned
///     a render (claiming…waiting) ─retryScheduled→ waiting; a later step stays, its retry counted
///     preparing, rendering ─interruptedByShutdown→ claimed, the attempt given back
///     a render (claiming…waiting) ─recovered→ claimed (preparing, rendering) or as it was
///     a render ─adopted(.toRender)→ claimed; committing ─adopted(.published)→ committed
///     committing ─adopted(.outOfSight)→ claimed, the attempt given back
///
/// Decisions that depend on the files (which output was found, whether a takeover's clip
/// is there: `JobRunner.adopt`) stay with the runner; what they found is an event here
/// (`recovered`, `adopted`), so a takeover or a recovery moves a record only where the
/// machine allows — `JobRecord.move(by:)` is the one place a state changes.
package enum JobStateMachine {
    package typealias State = JobRecord.State

    /// What happened to the job.
    package enum Event: Sendable, Hashable, CaseIterable {
        /// The clip (and its sidecars) were renamed into the claim folder.
        case clipClaimed
        /// An attempt was counted, before anything of the clip is read.
        case attemptStarted
        /// The daemon read the recipe and sidecars; the worker is about to render.
        case workerStarted
        /// The worker finished: the output (or every file of a set) is complete and fsynced.
        case rendered
        /// The commit found the rendered output gone before it was published.
        case outputVanished
        /// The output (or the set, manifest last) is published in the outbox.
        case published
        /// The original was archived or deleted, the job's end announced.
        case archived
        /// The job failed for good: the clip goes to failed/ with its reason.
        case failureDecided
        /// The clip and its error file are in failed/.
        case movedToFailed
        /// The job waits to be tried again: after a transient failure (`transient`), or
        /// for another reason (a clip still arriving, a folder away).
        case retryScheduled(transient: Bool)
        /// The daemon stopped (SIGTERM past `stop_timeout`) while the job was running.
        case interruptedByShutdown
        /// Another host took the claim over: the job is given up here.
        case claimLost
        /// Found mid-render with nobody rendering it — by this daemon's start after it
        /// stopped, or by a taker from its holder's record (`JobRecord.interrupted` noted
        /// it): rendered again from the claimed copy.
        case recovered
        /// A taker made its holder's record its own (`JobRunner.adopt`), as the files showed.
        case adopted(Adoption)

        /// What a taker found of its holder's job.
        package enum Adoption: Sendable, Hashable, CaseIterable {
            /// Nothing of the render is left to use (or the holder was moving the clip in):
            /// rendered (again) from the claimed clip.
            case toRender
            /// The holder's output was found published: only the original is left to archive.
            case published
            /// The holder had rendered its output, but it is out of this host's sight (its
            /// own outbox): rendered again, the attempt given back (it was no failure).
            case outOfSight
        }

        package static let allCases: [Event] = [
            .clipClaimed, .attemptStarted, .workerStarted, .rendered, .outputVanished, .published, .archived,
            .failureDecided, .movedToFailed, .retryScheduled(transient: true), .retryScheduled(transient: false),
            .interruptedByShutdown, .claimLost, .recovered,
        ] + Adoption.allCases.map(Event.adopted)
    }

    /// An effect of a transition, for `JobRunner.advance` to perform in the order given.
    package enum Action: Sendable, Hashable {
        /// Count the attempt (`attempts`, the metrics).
        case countAttempt
        /// Give the attempt back: it said nothing about the clip.
        case giveBackAttempt
        /// Count a failure of a step past the render (`finishRetries`, for its backoff).
        case countFinishRetry
        /// Write the record to the state folder and to the claim's lease (a taker resumes
        /// from it).
        case save
        /// Write the record to the state folder only: the claim is another host's now.
        case saveLocally
        /// Tell the coordination the job ended, stop holding the claim, remove its folder.
        case endClaim
    }

    /// Where an event takes a record.
    package struct Transition: Sendable, Hashable {
        package var state: State
        package var actions: [Action]
        package init(_ state: State, _ actions: [Action]) {
            self.state = state
            self.actions = actions
        }
    }

    /// An event that cannot happen in the state the record is in (a record a crash, a
    /// hostile lease or a bug put there): nothing is done.
    package struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        package var state: State
        package var event: Event
        package var description: String { "a job \(state.rawValue) cannot take the step \(event)" }
    }

    /// The states of a render not yet finished (the job goes back to rendering from them).
    package static let renderStates: Set<State> = [.claiming, .claimed, .preparing, .rendering, .waiting]
    /// The states past the render, each retried where it stopped.
    package static let laterStates: Set<State> = [.committing, .committed, .failing]
    /// The states a job ends in.
    package static let finalStates: Set<State> = [.done, .failed, .abandoned]

    /// The transition `event` makes from `state`.
    package static func transition(from state: State, on event: Event) throws(Refusal) -> Transition {
        let refused = Refusal(state: state, event: event)
        let unfinished = !finalStates.contains(state)
        switch event {
        case .clipClaimed:
            guard state == .claiming else { throw refused }
            return Transition(.claimed, [.save])
        case .attemptStarted:
            guard renderStates.contains(state) else { throw refused }
            return Transition(.preparing, [.countAttempt, .save])
        case .workerStarted:
            guard state == .preparing else { throw refused }
            return Transition(.rendering, [.save])
        case .rendered:
            guard state == .rendering else { throw refused }
            return Transition(.committing, [.save])
        case .outputVanished:
            guard state == .committing else { throw refused }
            return Transition(.claimed, [.save])
        case .published:
            guard state == .committing else { throw refused }
            return Transition(.committed, [.save])
        case .archived:
            guard state == .committed else { throw refused }
            // Done in the record and the lease before the folder goes: a crash in between
            // leaves a claim whose lease says done, which whoever finds it only removes.
            return Transition(.done, [.save, .endClaim])
        case .failureDecided:
            guard unfinished else { throw refused }
            return Transition(.failing, [.save])
        case .movedToFailed:
            guard state == .failing else { throw refused }
            return Transition(.failed, [.save, .endClaim])
        case let .retryScheduled(transient):
            guard unfinished else { throw refused }
            // A render starts over; a later step takes up where it stopped, its failure
            // counted for its own backoff.
            if renderStates.contains(state) { return Transition(.waiting, [.save]) }
            return Transition(state, transient ? [.countFinishRetry, .save] : [.save])
        case .interruptedByShutdown:
            // Not the clip's fault: a render in progress gives its attempt back; any other
            // step is taken up where it stopped at the next start.
            guard state == .preparing || state == .rendering else { return Transition(state, []) }
            return Transition(.claimed, [.giveBackAttempt, .save])
        case .claimLost:
            guard unfinished else { throw refused }
            return Transition(.abandoned, [.saveLocally])
        case .recovered:
            guard renderStates.contains(state) else { throw refused }
            // What the worker had written is gone; a job not yet in its attempt stays as it was.
            return Transition(state == .preparing || state == .rendering ? .claimed : state, [.save])
        case .adopted(.toRender):
            guard renderStates.contains(state) else { throw refused }
            return Transition(.claimed, [.save])
        case .adopted(.published):
            guard state == .committing else { throw refused }
            return Transition(.committed, [.save])
        case .adopted(.outOfSight):
            guard state == .committing else { throw refused }
            return Transition(.claimed, [.giveBackAttempt, .save])
        }
    }

    /// The step a job in `state` takes next (`JobRunner.resume` goes on through the ones
    /// after it).
    package enum Step: Sendable, Hashable {
        case render, publish, archive, moveToFailed
        /// Ended: nothing to do.
        case none
    }

    /// The step a job in `state` resumes with.
    package static func step(for state: State) -> Step {
        switch state {
        case .claiming, .claimed, .preparing, .rendering, .waiting: .render
        case .committing: .publish
        case .committed: .archive
        case .failing: .moveToFailed
        case .done, .failed, .abandoned: .none
        }
    }

    /// What a taker does with a claim it took over, by the state of its holder's record;
    /// what the files show decides the rest (`JobRunner.adopt`).
    package enum TakeoverPlan: Sendable, Hashable {
        /// The holder stopped before or while moving the clip in: claimed if the clip is
        /// in the folder, else the empty claim is removed.
        case claimIfClipThere
        /// Nothing rendered yet, or waiting for a retry: rendered (again).
        case renderAgain
        /// The holder stopped mid-attempt: as a step the daemon did not survive
        /// (`JobRecord.interrupted`), then rendered again or quarantined.
        case interruptedAttempt
        /// The holder was publishing: its output found published, taken under this job's
        /// temporary name, or — out of this host's sight — rendered again.
        case publish
        /// Published, or on its way to failed/: finished from where it stopped.
        case finishAsItStopped
        /// The holder had ended the job: only its claim is removed.
        case remove
    }

    /// What a taker does with a claim whose holder's record says `holder`.
    package static func takeover(of holder: State) -> TakeoverPlan {
        switch holder {
        case .claiming: .claimIfClipThere
        case .claimed, .waiting: .renderAgain
        case .preparing, .rendering: .interruptedAttempt
        case .committing: .publish
        case .committed, .failing: .finishAsItStopped
        case .done, .failed, .abandoned: .remove
        }
    }
}
