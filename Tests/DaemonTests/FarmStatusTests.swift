import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon

/// The farm as the status page, `dropcut status` and the metrics show it, from what a
/// running daemon last read from its coordinator (status.json): every host's claimed jobs,
/// the queue, the gauges by state and host.
@Suite struct FarmStatusTests {
    static let jobs = [
        PostgresCoordinator.FarmJob(job: "20261127T100000Z-000000000001", folder: "social", clip: "a <b>.mp4", state: "claimed",
                                    host: "render-1 (pid 10)", epoch: 2, leaseLeft: 41.5, step: "rendering"),
        PostgresCoordinator.FarmJob(job: "20261127T100000Z-000000000002", folder: "social", clip: "late.mp4", state: "claimed",
                                    host: "render-2 (pid 11)", epoch: 1, leaseLeft: -3, step: "committing"),
        PostgresCoordinator.FarmJob(job: "20261127T100000Z-000000000003", folder: "social", clip: "next.mp4", state: "queued",
                                    host: nil, epoch: 0, leaseLeft: nil, step: nil),
        PostgresCoordinator.FarmJob(job: "20261127T100000Z-000000000004", folder: "social", clip: "old.mp4", state: "done",
                                    host: "render-2 (pid 11)", epoch: 1, leaseLeft: nil, step: nil),
    ]

    @Test func theRunningDaemonsFarmIsShownAndEscaped() throws {
        let dir = try TemporaryDirectory()
        let folder = FolderConfig(name: "social", inbox: dir.file("in"), outbox: dir.file("out"), failed: dir.file("failed"))
        var status = DaemonStatus(pid: getpid(), started: Date(), updated: Date(), config: "c.yaml", running: [], queued: [], unavailable: [:])
        status.farm = DaemonStatus.Farm(coordinator: "db:5432/farm", jobs: Self.jobs, read: Date())
        try status.write(stateDirectory: dir.path)
        let coordinator = try CoordinatorConfig.parse(url: "postgresql://dropcut@db/farm")
        let report = StatusReport(stateDirectory: dir.path, folders: [folder], leaseTimeout: .seconds(60), recent: 10,
                                  coordinator: coordinator, readFarm: false)
        let text = report.text()
        #expect(text.contains("farm (coordinator db:5432/farm): 2 claimed, 1 queued"), "\(text)")
        #expect(text.contains("  rendering  social/a <b>.mp4  render-1 (pid 10), epoch 2, lease 42 s left"), "\(text)")
        #expect(text.contains("  committing  social/late.mp4  render-2 (pid 11), epoch 1, lease EXPIRED 3.0 s ago"), "\(text)")
        #expect(text.contains("  queued  social/next.mp4") && text.contains("  done  social/old.mp4  render-2 (pid 11)"), "\(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let farm = try #require(json["farm"] as? [String: Any])
        #expect(farm["coordinator"] as? String == "db:5432/farm" && (farm["jobs"] as? [Any])?.count == 4)

        let page = StatusPage(report: report, folders: [folder], canRetry: false, offerLogin: false).html()
        #expect(page.contains("<h2>Farm <small>db:5432/farm"), "\(page)")
        #expect(page.contains("social/a &lt;b&gt;.mp4") && !page.contains("a <b>.mp4"), "the clip's name is escaped")
        #expect(page.contains("rendering on <span class=\"host\">render-1 (pid 10)</span>") && page.contains("lease expired"))
        #expect(page.contains("2 claimed, 1 queued"))

        // Without a coordinator there is no farm, whatever status.json holds.
        let plain = StatusReport(stateDirectory: dir.path, folders: [folder], leaseTimeout: .seconds(60), recent: 10)
        #expect(plain.farm == nil && !plain.text().contains("farm"))
    }

    @Test func farmGaugesCountEveryHostsJobs() {
        let metrics = DaemonMetrics(version: "test", workers: 1)
        metrics.farm(counts: ["claimed": 2, "queued": 1, "done": 7], claimedByHost: ["render-1": 1, "render-2": 1])
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains("dropcut_farm_jobs{state=\"claimed\"} 2"), "\(text)")
        #expect(text.contains("dropcut_farm_jobs{state=\"queued\"} 1"))
        #expect(!text.contains("state=\"done\""), "ended jobs are a window of the newest, not a count")
        #expect(text.contains("dropcut_farm_claimed{host=\"render-2\"} 1"))
    }

    @Test func aHostsNameIsReadFromItsDescription() {
        #expect(HostIdentity.name(of: "render-2 (pid 812)") == "render-2")
        #expect(HostIdentity.name(of: "odd (pid 1) (pid 2)") == "odd (pid 1)")
        #expect(HostIdentity.name(of: "no pid") == "no pid")
        #expect(HostIdentity.name(of: "") == "")
        let identity = HostIdentity(host: "h", machineID: "m", bootID: "b", pid: 7)
        #expect(HostIdentity.name(of: identity.description) == "h")
    }
}
