import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// Starting, claiming, running and finishing jobs: what `dispatch` sets in motion.
extension Scheduler {
    // MARK: Retry

    /// Starts the waiting jobs whose time has come, oldest claim first.
    func startDueRetries(free: inout Int, into group: inout DiscardingTaskGroup) {
        for (record, folder) in jobs.due(at: .now) where free > 0 && !loop.isStopping {
            jobs[record.id] = .running(record, progress: 0, started: Date())
            group.addTask { [self] in await self.run(record, folder) }
            free -= 1
        }
    }

    /// What to do with a failed job: wait and retry it (transient failures, within the
    /// folder's retries, and anything after its commit; a clip still being written, one
    /// `settle`), or move it to failed/.
    nonisolated static func retryDelay(after failure: JobFailure, _ record: JobRecord, retries: Int,
                                       firstDelay: Duration, settle: Duration) -> Duration? {
        if case .unavailable = failure { return min(firstDelay * 8, .seconds(60)) }
        // Still being written: looked at again once it has had time to settle.
        if case .arriving = failure { return settle }
        guard case .transient = failure else { return nil }
        // Past the render the steps' own failures count (`finishRetries`), doubling the
        // wait as a render's do. A commit that has published nothing fails after as many
        // tries as a render (nothing is left half-visible); once the output is published,
        // or the failure decided, the step is retried for as long as it takes.
        if [.committing, .committed, .failing].contains(record.state) {
            let tried = record.finishRetries ?? 0
            if record.isCommittingUnpublished && tried >= retries { return nil }
            return min(firstDelay * (1 << max(0, min(tried, 16))), .seconds(600))
        }
        guard record.attempts <= retries else { return nil }
        let exponent = max(0, min(record.attempts - 1, 16))
        return min(firstDelay * (1 << exponent), .seconds(600))
    }

    // MARK: Scan

    /// Lists one inbox: the clips settled in it, or nil when it cannot be read (logged
    /// once per cause; an unreadable inbox is never taken for an empty one).
    func scan(_ folder: FolderConfig) -> [SettledClip]? {
        let clock = ContinuousClock(), began = clock.now
        guard let listing = inboxes.scan(folder.name) else { return nil }
        metrics.inboxScanned(folder: folder.name, in: clock.now - began)
        switch listing {
        case let .unavailable(reason):
            if inboxes.unavailable[folder.name] != reason {
                var log = logger
                log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
                log.error("\(reason); not treating it as empty, will retry", metadata: ["MESSAGE_ID": "\(MessageID.inboxUnavailable.rawValue)"])
                if once { tally.failures += 1 }
            }
            inboxes.unavailable[folder.name] = reason
            return nil
        case let .listed(settled, arrivingHere):
            if inboxes.unavailable.removeValue(forKey: folder.name) != nil {
                logger.notice("inbox \(folder.inbox) is readable again", metadata: ["DROPCUT_FOLDER": "\(folder.name)"])
            }
            inboxes.arriving += arrivingHere
            return settled
        }
    }

    // MARK: Claim

    /// The key of a claim in flight in `jobs` (file names cannot hold a NUL byte, so it
    /// cannot collide with a job id or another folder's claim).
    func claimKey(_ folder: String, _ input: String) -> String {
        "claim\u{0}\(folder)\u{0}\(input)"
    }

    /// Claims `clip` off the actor (the claim renames and fsyncs, which can block on a slow
    /// or network filesystem), then runs its job in the same task.
    func startClaim(_ clip: SettledClip, _ folder: FolderConfig, in group: inout DiscardingTaskGroup) {
        let key = claimKey(folder.name, clip.name)
        jobs[key] = .claiming
        let runner = self.runner
        group.addTask { [self] in
            let claimed: Result<JobRecord?, any Error>
            do {
                claimed = .success(try await BlockingWork.run("dropcut-claim") { _ in try runner.claim(clip, folder: folder) })
            } catch {
                claimed = .failure(error)
            }
            guard let record = await self.claimed(clip, folder, key: key, claimed) else { return }
            await self.run(record, folder)
        }
    }

    /// Marks `record`'s job running and returns it; while the daemon stops, logs
    /// `stoppingNote` instead and returns nil: stopping starts nothing more, the clip stays
    /// claimed (its record says so) and its job runs at the next start, as after a crash.
    func start(_ record: JobRecord, _ folder: FolderConfig, ifStopping stoppingNote: String) -> JobRecord? {
        if loop.isStopping {
            runner.logger(for: record, folder: folder).notice("\(record.input): \(stoppingNote)")
            return nil
        }
        jobs[record.id] = .running(record, progress: 0, started: Date())
        return record
    }

    /// Holds off work `key` until the next poll after `error`, logging `what` with the error
    /// once per cause, not at every poll (journald's rate limit would then swallow the
    /// events that matter); the cause without its paths, since each attempt names a new
    /// job's record.
    func blocked(_ key: String, _ error: any Error, _ folder: FolderConfig, _ what: String) {
        let system = error as? SystemError
        let cause = system.map { "\($0.function): \($0.errno)" } ?? "\(error)"
        if jobs.blocked[key]?.error != cause {
            logger.error("\(what): \(error)", metadata: ["DROPCUT_FOLDER": "\(folder.name)", "ERRNO": "\(system?.errno ?? 0)"])
        }
        jobs.blocked[key] = (until: .now + config.pollInterval, error: cause)
    }

    /// Books a finished claim: the job is now running under its id, or the clip went to
    /// another process, or it could not be claimed (logged; retried at the next poll, or a
    /// failure for `--once`, which must end).
    func claimed(_ clip: SettledClip, _ folder: FolderConfig, key: String,
                 _ result: Result<JobRecord?, any Error>) -> JobRecord? {
        jobs[key] = nil
        defer { loop.signal() }
        switch result {
        case let .success(record?):
            inboxes.forget(clip.name, in: folder.name)
            jobs.blocked[key] = nil
            return start(record, folder, ifStopping: "claimed as the daemon stops; it is rendered at the next start")
        case .success(nil):
            inboxes.forget(clip.name, in: folder.name)   // another process claimed it first
            jobs.blocked[key] = nil
            return nil
        case let .failure(error):
            blocked(key, error, folder, "cannot claim \(clip.name)")
            // --once must end: an unclaimable file is a failure, not work left.
            if once { tally.failures += 1 }
            return nil
        }
    }

    // MARK: Run

    /// Runs a job to its end, off the actor: resume it from its recorded state; on a
    /// failure that will not be retried, move it to failed/ (files moved off the pool too).
    nonisolated func run(_ start: JobRecord, _ folder: FolderConfig) async {
        var record = start
        let id = start.id
        let relay = ProgressRelay { [weak self] fraction in
            Task { await self?.progress(id, fraction) }
        }
        do {
            try await runner.resume(&record, folder: folder, limits: await config.limits, progress: { relay.report($0) },
                                    rendering: { [weak self] duration in Task { await self?.renderingStarted(id, duration: duration) } })
            // A recovered `failing` job ends in failed/: a failure, not an output.
            await finished(record, folder, record.state == .failed ? .failed : .done)
            return
        } catch {
            let failure = JobFailure.classify(error)
            if case .cancelled = failure {
                await finished(record, folder, .cancelled)
                return
            }
            if case let .lost(reason) = failure {
                await finished(record, folder, .abandoned(reason))
                return
            }
            if let delay = Self.retryDelay(after: failure, record, retries: folder.retries, firstDelay: await config.retryDelay,
                                           settle: await config.settle) {
                await finished(record, folder, .retry(failure, after: delay))
                return
            }
            do {
                try await runner.offPool(&record, "dropcut-fail") { [runner] in try runner.fail(&$0, folder: folder, failure: failure) }
                await finished(record, folder, .failed)
            } catch {
                if case let .lost(reason) = JobFailure.classify(error) {
                    await finished(record, folder, .abandoned(reason))
                } else {
                    await finished(record, folder, .failedToMove(error))
                }
            }
        }
    }

    /// How a job's run ended.
    enum Outcome {
        case done
        case cancelled
        case retry(JobFailure, after: Duration)
        case failed
        /// It failed for good, but moving it to failed/ failed too.
        case failedToMove(any Error)
        /// Its claim was taken over by another host: given up here (the reason).
        case abandoned(String)
    }

    func progress(_ id: String, _ fraction: Double) {
        if jobs.progress(id, fraction) { publish() }
    }

    /// The worker started writing an output `duration` seconds long: the status's speed
    /// counts from now.
    func renderingStarted(_ id: String, duration: Double) {
        guard case .running = jobs[id] else { return }
        jobs.renderings[id] = (duration, ContinuousClock.now)
    }

    func finished(_ finalRecord: JobRecord, _ folder: FolderConfig, _ outcome: Outcome) {
        var record = finalRecord
        var retrying = false
        if case .retry = outcome { retrying = true }
        jobs.ended(record.id, retrying: retrying)
        defer {
            publish(urgent: true)
            loop.signal()
        }
        let log = runner.logger(for: record, folder: folder)
        countMetrics(record, folder, outcome)
        switch outcome {
        case .done:
            tally.completed += 1
        case .cancelled:
            // Not the clip's fault: a render's attempt is given back (`JobStateMachine`).
            try? runner.advance(&record, .interruptedByShutdown, folder: folder)
            log.notice("\(record.input): interrupted by shutdown; it stays claimed and is redone at the next start")
        case let .retry(failure, delay):
            var log = log
            if let code = failure.errno { log[metadataKey: "ERRNO"] = "\(code)" }
            // A job past its render (committing, committed) or on its way to failed/
            // (failing) takes up where it stopped, its step's failure counted; only a
            // render starts over.
            let pastRender = JobStateMachine.laterStates.contains(record.state)
            var transient = false
            if case .transient = failure { transient = true }
            record.retryAt = Date().addingTimeInterval(delay.seconds)
            // Listed with the render's attempts (saved by the advance): the error file
            // of a clip that fails later shows every try.
            if pastRender && transient { record.recordFinishTry(runner.namedAsDropped(failure.reason, record, folder)) }
            try? runner.advance(&record, .retryScheduled(transient: transient), folder: folder)
            if case .unavailable = failure, once {
                // --once must end: the clip stays claimed (its record says so) and is
                // taken up by the next start.
                log.error("\(record.input): \(failure.reason); it stays claimed until the next start")
                tally.failures += 1
                return
            }
            if case .arriving = failure {
                jobs.waitingFor[record.id] = nil
                log.notice("\(failure.reason) (look \(record.arrival?.looks ?? 0) of \(ClipArrival.maximumLooks), every \(delay))",
                           metadata: ["MESSAGE_ID": "\(MessageID.jobRetry.rawValue)"])
            } else if case .unavailable = failure {
                // Logged once per job and cause while the folder stays away.
                if jobs.waitingFor[record.id] != failure.reason {
                    log.warning("\(record.input): \(failure.reason); looking again every \(delay)",
                                metadata: ["MESSAGE_ID": "\(MessageID.jobRetry.rawValue)"])
                }
                jobs.waitingFor[record.id] = failure.reason
            } else {
                jobs.waitingFor[record.id] = nil
                let count = pastRender
                    ? "\(record.finishStep ?? "finishing"), try \(record.finishRetries ?? 0)"
                        + (record.isCommittingUnpublished ? " of \(folder.retries + 1)" : "")
                    : "attempt \(record.attempts) of \(folder.retries + 1)"
                log.warning("\(record.input): \(runner.namedAsDropped(failure.reason, record, folder)); retrying in \(delay) (\(count))",
                            metadata: ["MESSAGE_ID": "\(MessageID.jobRetry.rawValue)"])
            }
            jobs[record.id] = .waiting(record, folder, until: .now + delay)
        case .failed:
            tally.failures += 1
        case let .abandoned(reason):
            abandon(record, folder, because: reason)
        case let .failedToMove(error):
            if once {
                // --once must end: the clip stays claimed, and the next start finishes
                // moving it (its record says `failing`).
                log.critical("\(record.input): cannot move it to the failed folder: \(error); it stays claimed until the next start")
                tally.failures += 1
            } else {
                log.critical("\(record.input): cannot move it to the failed folder: \(error); trying again later")
                jobs[record.id] = .waiting(record, folder, until: .now + config.retryDelay)
            }
        }
    }

    /// `dropcut_jobs_total` and the render histograms for a run that ended in `outcome`.
    func countMetrics(_ record: JobRecord, _ folder: FolderConfig, _ outcome: Outcome) {
        switch outcome {
        case .done:
            metrics.jobEnded(folder: folder.name, .done)
            if let ms = record.elapsedMilliseconds {
                metrics.rendered(folder: folder.name, elapsed: .milliseconds(ms), speed: record.speed)
            }
        case .failed, .failedToMove: metrics.jobEnded(folder: folder.name, .failed)
        case .retry: metrics.jobEnded(folder: folder.name, .retried)
        case .abandoned: metrics.jobEnded(folder: folder.name, .abandoned)
        case .cancelled: metrics.jobEnded(folder: folder.name, .cancelled)
        }
    }
}
