import Foundation
import Testing
import Daemon
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
