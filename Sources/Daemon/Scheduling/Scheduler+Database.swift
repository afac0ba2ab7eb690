import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// Claiming with a database coordinator (`coordinator:`): the inbox listing is offered to
/// the database, which gives this host its share — expired jobs to take over, then the
/// oldest queued clips — and only then are files moved (`JobRunner.claim`, `takeOver`).
extension Scheduler {
    /// The key of a worker slot a pick of `folder` holds in `jobs` until its job starts (a
    /// NUL cannot be in a name: no collision with a job id or a claim key).
    nonisolated func pickKey(_ folder: String, _ slot: Int) -> String {
        "pick\u{0}\(folder)\u{0}\(slot)"
    }

    /// One folder's pass: while no pick of it is in flight and workers are free, one task
    /// offers the listing and takes up to every free worker's worth of jobs, then runs them.
    /// A database that does not answer costs claiming only (logged once, by
    /// `DatabaseLeases`); running jobs go on.
    func dispatch(_ folder: FolderConfig, settled: [SettledClip], from database: DatabaseLeases,
                  free: inout Int, into group: inout DiscardingTaskGroup) {
        let prefix = pickKey(folder.name, 0).dropLast()
        // `watch --once` takes nothing over (as without a coordinator: it does not run long
        // enough to judge leases) and asks only for what it has not been refused: with
        // nothing left to ask for it picks no more, so its loop sees no job and ends.
        let settled = once ? settled.filter { !passedOver.contains(folder.name + "\u{0}" + $0.name) } : settled
        if once && settled.isEmpty { return }
        let picking = jobs.keys.contains { $0.hasPrefix(prefix) }
        if picking || free <= 0 || stop.isRequested {
            queued += settled.map { DaemonStatus.Queued(folder: folder.name, input: $0.name, since: $0.modified) }
            return
        }
        let slots = free
        free = 0
        for slot in 0..<slots { jobs[pickKey(folder.name, slot)] = .claiming }
        let runner = self.runner, migrate = !migrated, takeOver = !once
        group.addTask { [self] in
            let tickets: [DatabaseLeases.Ticket]
            do {
                tickets = try await BlockingWork.run("dropcut-pick") { _ in
                    if migrate { _ = try database.migrate() }
                    let tickets = try database.pick(folder, listed: settled, slots: slots, takeOver: takeOver)
                    // Clips no job accounts for go back to the inbox (not with --once: it
                    // does not watch long enough to judge, as it takes nothing over).
                    if takeOver { _ = runner.putBackOrphans(in: folder, database: database) }
                    return tickets
                }
            } catch {
                tickets = []   // logged by DatabaseLeases, once per condition
            }
            let claimed = Set(tickets.compactMap { ticket -> String? in
                if case let .claim(clip, _, _) = ticket { return clip.name }
                return nil
            })
            await self.picked(folder, slots: slots, taken: tickets.count, migrated: migrate && !database.isUnreachable,
                              left: settled.map(\.name).filter { !claimed.contains($0) })
            await withDiscardingTaskGroup { taking in
                for (slot, ticket) in tickets.enumerated() {
                    let key = self.pickKey(folder.name, slot)
                    taking.addTask {
                        switch ticket {
                        case let .claim(clip, held, took):
                            let claimed: Result<JobRecord?, any Error>
                            do {
                                claimed = .success(try await BlockingWork.run("dropcut-claim") { _ in
                                    do {
                                        return try runner.claim(clip, folder: folder, held: held, decided: took)
                                    } catch {
                                        // The clip stays in the inbox; its job ends as missing,
                                        // and a later listing queues it again.
                                        let record = JobRecord(claim: held.claim ?? held.job, of: held, folder: folder.name, input: clip.name,
                                                               state: .claiming)
                                        runner.keeper.ended(record, missing: true)
                                        throw error
                                    }
                                })
                            } catch {
                                claimed = .failure(error)
                            }
                            guard let record = await self.claimed(clip, folder, key: key, claimed) else { return }
                            await self.run(record, folder)
                        case let .takeover(held):
                            let result: Result<JobRunner.Takeover, any Error>
                            do {
                                result = .success(try await BlockingWork.run("dropcut-takeover") { _ in try runner.takeOver(held, folder: folder, lease: database.lease) })
                            } catch {
                                result = .failure(error)
                            }
                            guard let record = await self.tookOver(held, folder, key: key, result) else { return }
                            await self.run(record, folder)
                        }
                    }
                }
            }
        }
    }

    /// How often the farm is read for the status and metrics.
    static let farmInterval: Duration = .seconds(2)

    /// Reads the whole farm off the actor, at most every `farmInterval` and one read at a
    /// time, for status.json (the status page, `dropcut status`) and the farm gauges.
    func refreshFarm(_ database: DatabaseLeases, into group: inout DiscardingTaskGroup) {
        guard !farmReading, ContinuousClock.now - farmRead >= Self.farmInterval else { return }
        farmReading = true
        group.addTask { [self] in
            let result: Result<[PostgresCoordinator.FarmJob], any Error>
            do {
                result = .success(try await BlockingWork.run("dropcut-farm") { _ in try database.farm(recent: 20) })
            } catch {
                result = .failure(error)
            }
            await self.farmRefreshed(result, from: database)
        }
    }

    func farmRefreshed(_ result: Result<[PostgresCoordinator.FarmJob], any Error>, from database: DatabaseLeases) {
        farmReading = false
        farmRead = .now
        var farm = self.farm ?? DaemonStatus.Farm(coordinator: database.database.target, jobs: [], read: Date())
        switch result {
        case let .success(jobs):
            farm.jobs = jobs
            farm.error = nil
            farm.read = Date()
            var counts: [String: Int] = [:]
            var byHost: [String: Int] = [:]
            for job in jobs {
                counts[job.state, default: 0] += 1
                if job.state == "claimed", let host = job.host { byHost[HostIdentity.name(of: host), default: 0] += 1 }
            }
            // A host seen before and holding nothing now reads 0, not its last count.
            for host in farmHosts where byHost[host] == nil { byHost[host] = 0 }
            farmHosts.formUnion(byHost.keys)
            metrics.farm(counts: counts, claimedByHost: byHost)
        case let .failure(error):
            farm.error = "\(error)"
        }
        self.farm = farm
        publish(force: false)
    }

    /// A pick came back with `taken` jobs: the slots it did not fill are free again, for
    /// the next poll (not at once: a pick that found nothing, woken again at once, would
    /// ask the database in a loop).
    /// With `once`, a pick that filled fewer slots than it had leaves the clips it did not
    /// claim (`left`) to others: they are not asked for again in this run.
    func picked(_ folder: FolderConfig, slots: Int, taken: Int, migrated: Bool, left: [String] = []) {
        if migrated { self.migrated = true }
        if once && taken < slots { passedOver.formUnion(left.map { folder.name + "\u{0}" + $0 }) }
        for slot in taken..<max(taken, slots) { jobs[pickKey(folder.name, slot)] = nil }
    }

    /// Books a finished database takeover, as `tookOver` books a shared-folder one.
    func tookOver(_ held: PostgresCoordinator.Held, _ folder: FolderConfig, key: String,
                  _ result: Result<JobRunner.Takeover, any Error>) -> JobRecord? {
        jobs[key] = nil
        defer { wakeup.signal() }
        switch result {
        case let .success(.resume(record)):
            metrics.tookOver(folder: folder.name)
            return start(record, folder, ifStopping: "taken over as the daemon stops; it is resumed at the next start")
        case .success(.removed), .success(.missed):
            return nil
        case let .failure(error):
            // Its lease runs out again, and this host or another takes it over then.
            blocked(key, error, folder, "cannot take over job \(held.job) (\(held.clip))")
            return nil
        }
    }
}
