import Foundation
import DropcutPipeline
import DropcutSupport

/// The farm-wide view of the jobs, where the coordination keeps one
/// (`ClaimAssignment.farm`): read for status.json (the status page,
/// `dropcut status`) and the farm gauges.
extension Scheduler {
    /// Reads the whole farm off the actor, at most every `FarmView.interval` and one read
    /// at a time, for status.json (the status page, `dropcut status`) and the farm gauges.
    func refreshFarm(of assignment: any ClaimAssignment, into group: inout DiscardingTaskGroup) {
        guard farm.beginRead(at: .now) else { return }
        let coordinator = assignment.farmCoordinator
        group.addTask { [self] in
            let result: Result<[FarmJob], any Error>
            do {
                result = .success(try await BlockingWork.run("dropcut-farm") { _ in try assignment.farm(recent: 20) })
            } catch {
                result = .failure(error)
            }
            await self.farmRefreshed(result, from: coordinator)
        }
    }

    func farmRefreshed(_ result: Result<[FarmJob], any Error>, from coordinator: String) {
        if case .success = result { metrics.coordinatorReached(true) } else { metrics.coordinatorReached(false) }
        if let gauges = farm.read(result, from: coordinator, at: .now) {
            metrics.farm(counts: gauges.counts, claimedByHost: gauges.claimedByHost)
        }
        publish()
    }
}
