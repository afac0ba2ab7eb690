import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// Claiming where a coordinator assigns the claims (`ClaimCoordination.assignsClaims`):
/// the inbox listing is offered to it, it gives this host its share — expired jobs to take
/// over, then the oldest queued clips — and only then are files moved (`JobRunner.claim`,
/// `takeOver`, as for claims raced for on a share).
extension Scheduler {
    /// The key of a worker slot a pick of `folder` holds in `jobs` until its job starts (a
    /// NUL cannot be in a name: no collision with a job id or a claim key).
    nonisolated func pickKey(_ folder: String, _ slot: Int) -> String {
        "pick\u{0}\(folder)\u{0}\(slot)"
    }

    /// One folder's pass: while no pick of it is in flight and workers are free, one task
    /// offers the listing and takes up to every free worker's worth of work, then runs it.
    /// A coordinator that does not answer costs claiming only (logged once, by the
    /// coordination); running jobs go on.
    func dispatchAssigned(_ folder: FolderConfig, settled: [SettledClip], free: inout Int, into group: inout DiscardingTaskGroup) {
        let prefix = pickKey(folder.name, 0).dropLast()
        // `watch --once` takes nothing over (as on a share: it does not run long enough to
        // judge leases) and asks only for what it has not been refused: with nothing left
        // to ask for it picks no more, so its loop sees no job and ends.
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
        let runner = self.runner, keeper = self.keeper, prepare = !coordinatorReady, takeOver = !once
        group.addTask { [self] in
            let offers: [ClaimOffer]
            do {
                offers = try await BlockingWork.run("dropcut-pick") { _ in
                    if prepare { try keeper.prepare() }
                    return try keeper.pick(folder, listed: settled, slots: slots, takeOver: takeOver)
                }
            } catch {
                offers = []   // logged by the coordination, once per condition
            }
            let claimed = Set(offers.compactMap { offer -> String? in
                if case let .claim(clip, _) = offer { return clip.name }
                return nil
            })
            await self.picked(folder, slots: slots, taken: offers.count, prepared: prepare && !keeper.isUnreachable,
                              left: settled.map(\.name).filter { !claimed.contains($0) })
            await withDiscardingTaskGroup { taking in
                for (slot, offer) in offers.enumerated() {
                    let key = self.pickKey(folder.name, slot)
                    taking.addTask {
                        switch offer {
                        case let .claim(clip, ticket):
                            let claimed: Result<JobRecord?, any Error>
                            do {
                                claimed = .success(try await BlockingWork.run("dropcut-claim") { _ in
                                    do {
                                        return try runner.claim(clip, folder: folder, ticket: ticket)
                                    } catch {
                                        // The clip stays in the inbox; its job ends as missing,
                                        // and a later listing queues it again.
                                        keeper.ended(JobRecord(ticket: ticket, folder: folder.name, input: clip.name, state: .claiming),
                                                     missing: true)
                                        throw error
                                    }
                                })
                            } catch {
                                claimed = .failure(error)
                            }
                            guard let record = await self.claimed(clip, folder, key: key, claimed) else { return }
                            await self.run(record, folder)
                        case let .takeOver(candidate):
                            await self.takeOver(candidate, folder, key: key)
                        }
                    }
                }
            }
        }
    }

    /// A pick came back with `taken` jobs: the slots it did not fill are free again, for
    /// the next poll (not at once: a pick that found nothing, woken again at once, would
    /// ask the coordinator in a loop).
    /// With `once`, a pick that filled fewer slots than it had leaves the clips it did not
    /// claim (`left`) to others: they are not asked for again in this run.
    func picked(_ folder: FolderConfig, slots: Int, taken: Int, prepared: Bool, left: [String] = []) {
        if prepared { coordinatorReady = true }
        if once && taken < slots { passedOver.formUnion(left.map { folder.name + "\u{0}" + $0 }) }
        for slot in taken..<max(taken, slots) { jobs[pickKey(folder.name, slot)] = nil }
    }
}
