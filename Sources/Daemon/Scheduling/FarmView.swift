import Foundation
import DropcutPipeline
import DropcutSupport

/// The farm-wide view of the jobs as last read from the coordinator, where one assigns the
/// work (`ClaimAssignment.farm`): what status.json (the status page, `dropcut status`)
/// shows, what the farm gauges count, and when to read it again. Plain data; the read
/// itself is the scheduler's, off its actor.
struct FarmView {
    /// How often the farm is read.
    static let interval: Duration = .seconds(2)

    /// The farm as last read (the jobs of the read before, with its error, when the last
    /// one failed); nil before the first.
    private(set) var farm: DaemonStatus.Farm?
    private var lastRead: ContinuousClock.Instant?
    private var reading = false
    /// The hosts the gauges have named (each reads 0 once it holds nothing).
    private var hosts: Set<String> = []

    /// Whether a read is due at `now` — none in flight, the last one `interval` ago —;
    /// if so, it counts as in flight from now.
    mutating func beginRead(at now: ContinuousClock.Instant) -> Bool {
        guard !reading, lastRead.map({ now - $0 >= Self.interval }) ?? true else { return false }
        reading = true
        return true
    }

    /// What the read begun last gave, from `coordinator` at `now`: the jobs by state and
    /// the claims by host for the gauges (nil when it failed: the gauges keep their values).
    mutating func read(_ result: Result<[FarmJob], any Error>, from coordinator: String, at now: ContinuousClock.Instant)
        -> (counts: [String: Int], claimedByHost: [String: Int])? {
        reading = false
        lastRead = now
        var farm = self.farm ?? DaemonStatus.Farm(coordinator: coordinator, jobs: [], read: Date())
        defer { self.farm = farm }
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
            for host in hosts where byHost[host] == nil { byHost[host] = 0 }
            hosts.formUnion(byHost.keys)
            return (counts, byHost)
        case let .failure(error):
            farm.error = "\(error)"
            return nil
        }
    }
}
