import Foundation
import DropcutPipeline
import DropcutSupport

/// The farm-wide view of the jobs, where the coordination keeps one
/// (`ClaimCoordination.farmCoordinator`): read for status.json (the status page,
/// `dropcut status`) and the farm gauges.
extension Scheduler {
    /// How often the farm is read for the status and metrics.
    static let farmInterval: Duration = .seconds(2)

    /// Reads the whole farm off the actor, at most every `farmInterval` and one read at a
    /// time, for status.json (the status page, `dropcut status`) and the farm gauges.
    func refreshFarm(of coordinator: String, into group: inout DiscardingTaskGroup) {
        guard !farmReading, ContinuousClock.now - farmRead >= Self.farmInterval else { return }
        farmReading = true
        let keeper = self.keeper
        group.addTask { [self] in
            let result: Result<[FarmJob], any Error>
            do {
                result = .success(try await BlockingWork.run("dropcut-farm") { _ in try keeper.farm(recent: 20) })
            } catch {
                result = .failure(error)
            }
            await self.farmRefreshed(result, from: coordinator)
        }
    }

    func farmRefreshed(_ result: Result<[FarmJob], any Error>, from coordinator: String) {
        farmReading = false
        farmRead = .now
        var farm = self.farm ?? DaemonStatus.Farm(coordinator: coordinator, jobs: [], read: Date())
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

}
