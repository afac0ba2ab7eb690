import Foundation
import Testing
@testable import DropcutDaemon
import TestSupport

/// How a daemon judges other hosts' claims: by whether their leases change, timed by its
/// own monotonic clock only.
@Suite struct ClaimObserverTests {
    @Test func aLeaseExpiresWhenItStaysTheSameForTheTimeoutSinceItWasFirstSeen() throws {
        let dir = try TemporaryDirectory()
        let folder = try ClaimLeaseTests.claim(in: dir)
        var lease = ClaimLease(owner: ClaimLeaseTests.owner, record: ClaimLeaseTests.record())
        try lease.write(in: folder, durable: false)
        var observer = ClaimObserver(claimedDirectory: dir.file("claimed"), leaseTimeout: .seconds(60))
        let start = ContinuousClock.now

        // First reading: "just seen", however old the file is (its mtime is another
        // host's clock, never read).
        let first = try #require(observer.observe(now: start).first)
        #expect(first.name == ClaimName(job: "20261123T114124Z-8c80351dd074"))
        #expect(first.lease == lease)
        #expect(!first.changeSeen)
        #expect(observer.age(of: first, now: start) == .zero)
        #expect(!observer.isExpired(first, now: start + .seconds(59)))

        // Unchanged: it ages; at the timeout it has expired.
        let later = try #require(observer.observe(now: start + .seconds(59)).first)
        #expect(observer.age(of: later, now: start + .seconds(59)) == .seconds(59))
        #expect(observer.isExpired(later, now: start + .seconds(60)))

        // Renewed (a new beat): the age starts again from this reading.
        lease.beat += 1
        try lease.write(in: folder, durable: false)
        let renewed = try #require(observer.observe(now: start + .seconds(61)).first)
        #expect(renewed.changeSeen)
        #expect(observer.age(of: renewed, now: start + .seconds(70)) == .seconds(9))
        #expect(!observer.isExpired(renewed, now: start + .seconds(120)))
        #expect(observer.isExpired(renewed, now: start + .seconds(121)))
    }

    /// A claim folder without its lease yet (made a moment ago, or by an older dropcut)
    /// is watched like any other; what is not a claim folder is nobody's claim.
    @Test func onlyClaimFoldersAreWatched() throws {
        let dir = try TemporaryDirectory()
        let claimed = dir.file("claimed")
        _ = try ClaimLeaseTests.claim(in: dir, "bare-job")
        try FileManager.default.createDirectory(atPath: dir.file("claimed/.hidden"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("claimed/a.b"), withIntermediateDirectories: true)
        try "x".write(toFile: dir.file("claimed/file-job"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir.file("claimed/link-job"), withDestinationPath: dir.file("claimed/bare-job"))
        var observer = ClaimObserver(claimedDirectory: claimed, leaseTimeout: .seconds(1))
        let seen = observer.observe()
        #expect(seen.map(\.name.description) == ["bare-job"])
        #expect(seen.first?.reading == .missing)
        // An unreadable claimed folder lists nothing (it is not "every claim expired").
        var missing = ClaimObserver(claimedDirectory: dir.file("nowhere"), leaseTimeout: .seconds(1))
        #expect(missing.observe().isEmpty)
    }
}

/// Leases read through sshfs while their holder rewrites them on the server: never read
/// cut short. (sshfs and the kernel cache a file's size for a while; a lease replaced by a
/// longer one was read at the old length — not JSON — until leases were padded to a fixed
/// size.)
@Suite(.serialized, .tags(.slow)) struct ClaimObserverOverSSHFSTests {
    @Test func leasesRenewedOnTheServerAreReadWholeThroughTheMount() throws {
        let server = try SFTPServer()
        let claimed = server.export + "/claimed"
        let id = "20261123T114124Z-8c80351dd074"
        try FileManager.default.createDirectory(atPath: claimed + "/" + id, withIntermediateDirectories: true)
        let share = try SSHFSMount(server, options: ["dcache_timeout=1"])
        let keeper = LeaseKeeper(owner: ClaimLeaseTests.owner)
        // Each write of another length, as the steps of a job make it (the record grows
        // by its temporary output, its history...).
        let first = ClaimLeaseTests.record(id)
        #expect(try keeper.hold(first, name: ClaimName(job: id), claimedDirectory: claimed) == .renamed)
        let renewing = Thread {
            var record = first
            for write in 0..<400 {
                record.history = (0...(write % 6)).map { "attempt \($0): interrupted: dropcut stopped while it was rendering" }
                keeper.update(record)
                usleep(2_000)
            }
        }
        renewing.start()
        var observer = ClaimObserver(claimedDirectory: share.file("claimed"), leaseTimeout: .seconds(60))
        var beats: Set<UInt64> = [], torn: [String] = []
        for _ in 0..<200 {
            for sighting in observer.observe() {
                switch sighting.reading {
                case let .lease(lease): beats.insert(lease.beat)
                case let .unreadable(why): torn.append(why)
                case .missing: torn.append("missing")
                }
            }
            usleep(5_000)
        }
        while renewing.isExecuting { usleep(10_000) }
        #expect(torn.isEmpty, "\(torn.count) readings cut short: \(torn.prefix(3))")
        #expect(beats.count > 10, "the rewrites were seen: \(beats.count) beats")
    }
}
