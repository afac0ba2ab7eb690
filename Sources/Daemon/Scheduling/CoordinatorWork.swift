import Foundation
import Synchronization
import DropcutPipeline
import DropcutSupport

/// Work where a coordinator assigns it (`ClaimAssignment`): the inbox listing is offered
/// to it, it gives this host its share — expired jobs to take over, then the oldest queued
/// clips — and only then are files moved (`JobRunner.claim`, `takeOver`, as for claims
/// raced for on a share). The coordinator's schema, when it was away at start, is made
/// ready by the first pick that reaches it (`ClaimAssignment.pick`).
final class CoordinatorWork: WorkSource {
    let assignment: any ClaimAssignment
    /// With `watch --once`: the clips (by folder and name, NUL between) a pick left to
    /// others or could not claim. A run that asked again for them at every pass would
    /// never end: each pick holds its workers' slots while it is in flight.
    private let passedOver = Mutex<Set<String>>([])

    init(assignment: any ClaimAssignment) {
        self.assignment = assignment
    }

    private func key(_ folder: FolderConfig, _ clip: String) -> String { folder.name + "\u{0}" + clip }

    /// One folder's pass: while no pick of it is in flight and workers are free, one task
    /// offers the listing and takes up to every free worker's worth of work, then runs it.
    /// A coordinator that does not answer costs claiming only (logged once, by the
    /// coordination); running jobs go on.
    func dispatch(_ folder: FolderConfig, settled: [SettledClip], free: inout Int, scheduler: isolated Scheduler,
                  into group: inout DiscardingTaskGroup) {
        let prefix = scheduler.pickKey(folder.name, 0).dropLast()
        // `watch --once` takes nothing over (as on a share: it does not run long enough to
        // judge leases) and asks only for what it has not been refused: with nothing left
        // to ask for it picks no more, so its loop sees no job and ends.
        let once = scheduler.once
        let passed = passedOver.withLock { $0 }
        let settled = once ? settled.filter { !passed.contains(key(folder, $0.name)) } : settled
        if once && settled.isEmpty { return }
        let picking = scheduler.jobs.contains(keyWithPrefix: prefix)
        if picking || free <= 0 || scheduler.loop.isStopping {
            scheduler.jobs.queued += settled.map { DaemonStatus.Queued(folder: folder.name, input: $0.name, since: $0.modified) }
            return
        }
        let slots = free
        free = 0
        for slot in 0..<slots { scheduler.jobs[scheduler.pickKey(folder.name, slot)] = .claiming }
        let runner = scheduler.runner, keeper = scheduler.keeper, assignment = self.assignment
        group.addTask { [scheduler, self] in
            let offers: [ClaimOffer]
            do {
                offers = try await BlockingWork.run("dropcut-pick") { _ in
                    try assignment.pick(folder, listed: settled, slots: slots, takeOver: !once)
                }
            } catch {
                offers = []   // logged by the coordination, once per condition
            }
            if once && offers.count < slots {
                let claimed = Set(offers.compactMap { offer -> String? in
                    if case let .claim(clip, _) = offer { return clip.name }
                    return nil
                })
                let left = settled.map(\.name).filter { !claimed.contains($0) }
                passedOver.withLock { $0.formUnion(left.map { self.key(folder, $0) }) }
            }
            await scheduler.picked(folder, slots: slots, taken: offers.count)
            await withDiscardingTaskGroup { taking in
                for (slot, offer) in offers.enumerated() {
                    let key = scheduler.pickKey(folder.name, slot)
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
                            guard let record = await scheduler.claimed(clip, folder, key: key, claimed) else { return }
                            await scheduler.run(record, folder)
                        case let .takeOver(candidate):
                            await scheduler.takeOver(candidate, folder, key: key)
                        }
                    }
                }
            }
        }
    }
}
