import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A farm cut apart by the network (issue 45): PostgreSQL in a network namespace of its
/// own, each host (a real `dropcut watch`) in another, joined by veth pairs on a bridge
/// (`NetworkNamespaces`; 10.45.0.x exists only inside them). The shared folders are the
/// same directory for every host (namespaces do not separate files): what is cut is the
/// database only, as when a host loses its route to the database server but not its
/// share. One host's wall clock is set 5 hours ahead (libfaketime, from the `faketime`
/// package): leases are judged by the database's clock, so it must change nothing.
@Suite(.serialized, .tags(.slow)) struct PartitionTests {
    typealias Host = ScaleOutTests.Host

    /// The host rendering a clip is cut off from the database mid-render: it publishes
    /// nothing (its lease ran out by the database's clock, and its fence cannot be
    /// recorded), another host takes the job over and publishes it, the others go on with
    /// new clips; when the link is back the cut host abandons the job — each clip published
    /// exactly once, nothing left claimed. The host whose clock is 5 hours ahead takes no
    /// lease over early and renders its share.
    @Test func aHostCutOffPublishesNothingAfterItsLeaseAndAClockHoursOffChangesNothing() async throws {
        let lease = 3.0
        let names = ["host-a", "host-b", "host-c"]
        let net = try NetworkNamespaces(hosts: names)
        let database = try await PostgresServer(namespace: net.server, address: net.serverAddress, trusting: net.block)
        let h = try ScaleOutTests.Share(.directory)
        let hosts = try names.map { name -> Host in
            let host = try FarmTests.host(name, h, database, leaseTimeout: lease)
            host.launcher = net.launcher(for: name)
            return host
        }
        let skewed = hosts[2]
        skewed.environment = try FakeClock.environment(offset: "+5h", buildingIn: h.harness.dir)
        for host in hosts { try host.start(waitForReady: false) }
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { hosts.allSatisfy { $0.log.contains("dropcut ready") } },
                "\(hosts.map(\.log).joined(separator: "\n"))")

        try ScaleOutTests.drop(["long.mp4"], into: h, seconds: 20, size: "640x480")
        // Blocking from here to the cut: it must land while the holder renders.
        var found: Host?
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) {
            found = hosts.first { $0.log.contains("rendering long.mp4") && !$0.workers.isEmpty }
            return found != nil
        }, "\(hosts.map(\.log).joined(separator: "\n"))")
        let holder = try #require(found)
        try net.cut(holder.name)
        let cut = ContinuousClock.now
        #expect(!holder.workers.isEmpty, "the holder was still rendering when it was cut off")
        let others = hosts.filter { $0 !== holder }
        var taker: Host?
        #expect(DaemonHarness.waitUntilBlocking(.seconds(lease + 10)) {
            taker = others.first { $0.log.contains("took over long.mp4") }
            return taker != nil
        }, "\(others.map(\.log).joined(separator: "\n"))")
        let latency = ContinuousClock.now - cut
        // The lease runs from the holder's last renewal (every third of it) before the cut.
        #expect(latency >= .seconds(lease * 2 / 3) && latency < .seconds(lease + 2), "takeover \(latency) after the cut")
        let newcomer = try #require(taker)
        // The others go on meanwhile: new clips, rendered by the two still connected.
        let during = (0..<8).map { String(format: "m%02d.mp4", $0) }
        try ScaleOutTests.drop(during, into: h, seconds: 0.2, size: "64x64")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) {
            newcomer.log.contains("done long.mp4") && h.files(h.archive).count >= during.count + 1
        }, "\(newcomer.log)")
        // The cut host finished its render while cut off (its worker is gone), and tried
        // to publish: nothing of it is published.
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { holder.workers.isEmpty }, "\(holder.log)")
        let output = (h.outbox as NSString).appendingPathComponent("long.dropcut.mp4")
        let published = try FileManager.default.attributesOfItem(atPath: output)
        #expect(h.files(h.outbox, hidden: true).filter { $0.hasPrefix("long") } == ["long.dropcut.mp4"])
        #expect(!holder.log.contains("done long.mp4"), "\(holder.log)")

        // The link back: the holder finds the job taken over and abandons it.
        try net.restore(holder.name)
        #expect(await DaemonHarness.waitUntil(.seconds(40)) { holder.log.contains("abandoned long.mp4") }, "\(holder.log)")
        let after = (0..<6).map { String(format: "n%02d.mp4", $0) }
        try ScaleOutTests.drop(after, into: h, seconds: 0.2, size: "64x64")
        let all = ["long.mp4"] + during + after
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.archive).count >= all.count },
                "\(hosts.map(\.log).joined(separator: "\n"))")
        DaemonHarness.sleepBlocking(1)
        for host in hosts { #expect(await host.stop() == 0, "\(host.log)") }

        FarmTests.expectEachRenderedOnce(all, h, hosts)
        let now = try FileManager.default.attributesOfItem(atPath: output)
        #expect(now[.systemFileNumber] as? Int == published[.systemFileNumber] as? Int
                && now[.modificationDate] as? Date == published[.modificationDate] as? Date, "the taker's output untouched")
        let abandoned = try #require(holder.records.first { $0.input == "long.mp4" })
        #expect(abandoned.state == .abandoned, "\(abandoned)")
        let done = try #require(newcomer.records.first { $0.input == "long.mp4" && $0.state == .done })
        #expect(done.epoch == 2 && done.farmJob == abandoned.farmJob, "\(done)")
        #expect(try FarmTests.rows(database, conninfo: database.socketConninfo) == ["done": all.count])
        // One takeover in all (the cut host's job): the clock 5 hours ahead took nothing early.
        let takeovers = hosts.map { Self.count("took over", in: $0.log) }
        #expect(takeovers.reduce(0, +) == 1, "\(takeovers)")
        for host in others { #expect(!host.log.contains("abandoned"), "\(host.log)") }
        // The clock was off: its records' times are its own clock's, 5 hours ahead, and it
        // rendered its share.
        let skewedDone = skewed.records.filter { $0.state == .done }
        #expect(!skewedDone.isEmpty, "the host 5 hours ahead rendered nothing")
        // (`updatedAt`: each save stamps it with the saving host's clock; a taken-over job
        // keeps its holder's `claimedAt`.)
        #expect(skewedDone.allSatisfy { $0.updatedAt.timeIntervalSinceNow > 4 * 3600 }, "\(skewedDone.map(\.updatedAt))")
        let byHost = hosts.map { host in "\(host.name): \(host.records.filter { $0.state == .done }.count)" }
        print("PartitionTests: \(holder.name) cut off mid-render; \(newcomer.name) took over \(latency) after the cut; done by host \(byHost)")
    }

    static func count(_ text: String, in log: String) -> Int { log.components(separatedBy: text).count - 1 }
}
