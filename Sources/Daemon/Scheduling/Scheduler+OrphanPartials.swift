import Foundation
import DropcutPipeline
import DropcutSupport

/// What renders of jobs that are over left in the outboxes, removed at start-up.
extension Scheduler {
    /// Removes the temporary files (`.<stem>.partial-<job>.<ext>`, an HLS ladder's
    /// folder too) of jobs that are over, as this host knows them: its jobs that ended
    /// done or failed; its jobs another host took over (abandoned at least `lease_timeout`
    /// ago: the taker takes what it can of them right at the takeover); and the holders
    /// it took jobs over from (`previousJobs`: what was taken was renamed to this host's
    /// job, so what still carries the holder's name is nobody's). A temporary file of a
    /// job this host does not know is left alone: on a shared outbox it is another host's
    /// render in progress.
    func sweepOrphanPartials(_ records: [JobRecord]) {
        let now = Date()
        let live = Set(records.filter { !$0.isFinished }.map(\.id))
        var over = Set<String>()
        for record in records {
            switch record.state {
            case .done, .failed: over.insert(record.id)
            case .abandoned where now.timeIntervalSince(record.updatedAt) >= config.leaseTimeout.seconds: over.insert(record.id)
            default: break
            }
            over.formUnion(record.previousJobs ?? [])
        }
        over.subtract(live)
        guard !over.isEmpty else { return }
        for outbox in Set(config.folders.map(\.outbox)).sorted() {
            let swept = PartialOutput.removeAll(taggedWith: over, in: outbox)
            if !swept.isEmpty {
                logger.notice("removed \(swept.count) temporary file(s) of jobs that are over from \(outbox): \(swept.joined(separator: ", "))")
            }
        }
    }
}
