import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon

/// The alerting rules the package ships (`prometheus/dropcut.rules.yml`, installed under
/// /usr/share/dropcut/prometheus): Prometheus's own `promtool` checks them and runs their
/// unit tests (each alert fires where it should and not where it should not), and every
/// metric they watch is one the daemon exports, as docs/connect.md lists them.
@Suite struct AlertingRuleTests {
    static let rules = Repository.path("prometheus/dropcut.rules.yml")
    static let tests = Repository.path("prometheus/dropcut.rules.test.yml")

    @Test func promtoolChecksTheRulesAndPassesTheirUnitTests() async throws {
        let checked = try await Command.run("promtool", ["check", "rules", Self.rules])
        #expect(checked.status == 0 && checked.stdout.contains("SUCCESS: 5 rules found"), "\(checked.stdout)\(checked.stderr)")
        let tested = try await Command.run("promtool", ["test", "rules", Self.tests])
        #expect(tested.status == 0 && tested.stdout.contains("SUCCESS"), "\(tested.stdout)\(tested.stderr)")
    }

    @Test func everyMetricTheRulesWatchIsOneTheDaemonExports() throws {
        let text = try String(contentsOfFile: Self.rules, encoding: .utf8)
        // Every name in the file, the expressions' and the annotations' alike.
        let watched = Set(text.matches(of: #/dropcut_[a-z_]+/#).map { String($0.output) })
        #expect(watched.isSuperset(of: ["dropcut_workers_running", "dropcut_jobs_total", "dropcut_oldest_waiting_seconds",
                                        "dropcut_coordinator_up", "dropcut_abandons_total"]), "\(watched)")
        let documented = try String(contentsOfFile: Repository.path("docs/connect.md"), encoding: .utf8)
        for name in watched { #expect(documented.contains("| `\(name)"), "\(name) is not in docs/connect.md's metrics") }
        // The one they add: the coordinator's answer to the farm's reads, 1 or 0.
        let metrics = DaemonMetrics(version: "test", workers: 1)
        metrics.coordinatorReached(false)
        #expect(String(decoding: metrics.exposition(), as: UTF8.self).contains("dropcut_coordinator_up 0"))
        metrics.coordinatorReached(true)
        #expect(String(decoding: metrics.exposition(), as: UTF8.self).contains("dropcut_coordinator_up 1"))
    }
}
