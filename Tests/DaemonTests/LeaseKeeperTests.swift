import Foundation
import Logging
import DropcutRender
import DropcutSupport
import Testing
@testable import DropcutDaemon
import TestSupport

/// The holder's side of a lease: renewals change the file, a takeover is found by name at
/// the next renewal or fence, and a fence moves the claim so that no taker can interleave.
@Suite struct LeaseKeeperTests {
    static let id = "20261123T114124Z-8c80351dd074"
    let logger = Logger(label: "LeaseKeeperTests")

    @Test func renewalsChangeTheLeaseAndATakeoverIsFoundAtTheNextRenewal() throws {
        let dir = try TemporaryDirectory()
        let claimed = dir.file("claimed")
        _ = try ClaimLeaseTests.claim(in: dir, Self.id)
        let keeper = LeaseKeeper(owner: ClaimLeaseTests.owner)
        let record = ClaimLeaseTests.record(Self.id)
        #expect(try keeper.hold(record, name: ClaimName(job: Self.id), claimedDirectory: claimed) == .renamed)
        var observer = ClaimObserver(claimedDirectory: claimed, leaseTimeout: .seconds(60))
        #expect(observer.observe().first?.lease?.beat == 0)

        #expect(keeper.renew(logger: logger).isEmpty)
        let renewed = try #require(observer.observe().first)
        #expect(renewed.changeSeen && renewed.lease?.beat == 1 && renewed.lease?.owner == ClaimLeaseTests.owner)

        // Another host takes the claim over (the lease it watched is the one there).
        let render = Cancellation()
        keeper.attach(render, to: Self.id)
        #expect(try ClaimTakeover.attempt(renewed, in: claimed, as: "taker-job"))
        let lost = keeper.renew(logger: logger)
        #expect(lost.map(\.job) == [Self.id])
        #expect(lost.first?.reason.contains("another host took it over") == true, "\(lost)")
        #expect(render.isCancelled, "the render of a lost claim is stopped")
        #expect(keeper.lostReason(Self.id) != nil)

        // Its fence fails; the taker's folder is untouched by this keeper from now on.
        var mine = record
        #expect(throws: JobFailure.self) { try keeper.fence(&mine, claimedDirectory: claimed) }
        #expect(keeper.renew(logger: logger).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: claimed) == ["taker-job"])
        var after = ClaimObserver(claimedDirectory: claimed, leaseTimeout: .seconds(60))
        #expect(ClaimLease.read(claimDirectory: dir.file("claimed/taker-job"), name: ClaimName(job: Self.id)).reading
                == renewed.reading)
        #expect(after.observe().map(\.name.description) == ["taker-job"])
    }

    @Test func aFenceRenamesTheClaimAndRenewalsFollowIt() throws {
        let dir = try TemporaryDirectory()
        let claimed = dir.file("claimed")
        _ = try ClaimLeaseTests.claim(in: dir, Self.id)
        let keeper = LeaseKeeper(owner: ClaimLeaseTests.owner)
        var record = ClaimLeaseTests.record(Self.id)
        #expect(try keeper.hold(record, name: record.claim, claimedDirectory: claimed) == .renamed)

        try keeper.fence(&record, claimedDirectory: claimed)
        #expect(record.claimName == "\(Self.id).committing-1")
        #expect(keeper.heldNames(in: claimed) == ["\(Self.id).committing-1"])
        #expect(keeper.renew(logger: logger).isEmpty)
        try keeper.fence(&record, claimedDirectory: claimed)
        record.store(in: .committed)
        keeper.update(record)
        #expect(try FileManager.default.contentsOfDirectory(atPath: claimed) == ["\(Self.id).committing-2"])
        var observer = ClaimObserver(claimedDirectory: claimed, leaseTimeout: .seconds(60))
        let lease = try #require(observer.observe().first?.lease)
        #expect(lease.beat == 2 && lease.record.state == .committed && lease.record.claimName == "\(Self.id).committing-2")

        keeper.release(Self.id)
        #expect(keeper.heldJobs.isEmpty)
    }

    @Test func aClaimFolderThatIsGoneCannotBeHeld() throws {
        let dir = try TemporaryDirectory()
        let keeper = LeaseKeeper(owner: ClaimLeaseTests.owner)
        let record = ClaimLeaseTests.record(Self.id)
        #expect(try keeper.hold(record, name: record.claim, claimedDirectory: dir.file("claimed")) == .lost)
        #expect(keeper.heldJobs.isEmpty)
    }
}
