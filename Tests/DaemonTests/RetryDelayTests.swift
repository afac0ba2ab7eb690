import Foundation
import Testing
@testable import DropcutDaemon
import DropcutPipeline

/// `Scheduler.retryDelay`: how long a job waits after a failure, and when it stops waiting
/// and fails — every state a job can fail in, every count up to past the bound.
@Suite struct RetryDelayTests {
    static let first = Duration.milliseconds(100)

    static func record(_ state: JobRecord.State, attempts: Int = 1, finishRetries: Int? = nil,
                       temporary: Bool = true, published set: Bool? = nil) -> JobRecord {
        var record = JobRecord(id: "j", folder: "f", input: "clip.mp4", sidecars: [], state: state)
        record.attempts = attempts
        record.finishRetries = finishRetries
        if temporary { record.recordSingleOutput("clip.mp4", temporary: "/out/.clip.partial-j.mp4") }
        if let set {
            record.deliverables = [DeliverableRecord(name: "a.mp4", kind: "video", temporary: "/out/.a.mp4.partial-j"),
                                   DeliverableRecord(name: "a.dropcut.json", kind: DeliverableRecord.manifestKind, temporary: "/out/.a.dropcut.json.partial-j")]
            if set { record.deliverables?[0].output = "/out/a.mp4" }
        }
        return record
    }

    @Test func aRenderDoublesThenFails() {
        let failure = JobFailure.transient("disk full", errno: ENOSPC)
        // retries: 2 — three attempts in all, the third failure is the last.
        for attempts in 1...2 {
            let delay = Scheduler.retryDelay(after: failure, Self.record(.rendering, attempts: attempts), retries: 2, firstDelay: Self.first, settle: .seconds(3))
            #expect(delay == Self.first * (1 << (attempts - 1)))
        }
        #expect(Scheduler.retryDelay(after: failure, Self.record(.rendering, attempts: 3), retries: 2, firstDelay: Self.first, settle: .seconds(3)) == nil)
        #expect(Scheduler.retryDelay(after: .permanent("bad", errno: nil), Self.record(.rendering), retries: 2, firstDelay: Self.first, settle: .seconds(3)) == nil)
    }

    /// Past the render the step's own tries count (the render's attempts no longer move).
    @Test func aCommitThatPublishedNothingDoublesThenFails() {
        let failure = JobFailure.transient("No space left on device", errno: ENOSPC)
        for set in [nil, false] as [Bool?] {
            for tried in 0...4 {
                let record = Self.record(.committing, attempts: 1, finishRetries: tried == 0 ? nil : tried, published: set)
                #expect(record.isCommittingUnpublished)
                let delay = Scheduler.retryDelay(after: failure, record, retries: 2, firstDelay: Self.first, settle: .seconds(3))
                #expect(delay == (tried < 2 ? Self.first * (1 << tried) : nil), "set \(String(describing: set)), tried \(tried)")
            }
        }
    }

    /// A published output (or part of a set), an archive, a move to failed/: retried for as
    /// long as it takes, the wait doubling to its 10-minute cap.
    @Test func stepsAfterPublishingAreRetriedWithGrowingWaits() {
        let failure = JobFailure.transient("No space left on device", errno: ENOSPC)
        let records = [Self.record(.committing, published: true), Self.record(.committed, temporary: false),
                       Self.record(.failing, temporary: false), Self.record(.committing, temporary: false)]
        for base in records {
            #expect(!base.isCommittingUnpublished)
            var previous = Duration.zero
            for tried in 0...40 {
                var record = base
                record.finishRetries = tried
                let delay = Scheduler.retryDelay(after: failure, record, retries: 2, firstDelay: Self.first, settle: .seconds(3))
                #expect(delay != nil && delay! >= previous && delay! <= .seconds(600), "\(base.state) tried \(tried)")
                previous = delay ?? previous
            }
            #expect(previous == .seconds(600))
        }
    }

    @Test func aClipStillBeingWrittenWaitsOneSettle() {
        for state in [JobRecord.State.rendering, .waiting] {
            let record = Self.record(state, attempts: 99)
            #expect(Scheduler.retryDelay(after: .arriving("growing"), record, retries: 2, firstDelay: Self.first, settle: .seconds(3)) == .seconds(3))
        }
    }

    @Test func anUnavailableFolderIsNeverCounted() {
        for state in [JobRecord.State.rendering, .committing, .committed, .failing] {
            let record = Self.record(state, attempts: 99, finishRetries: 99)
            #expect(Scheduler.retryDelay(after: .unavailable("outbox away"), record, retries: 2, firstDelay: Self.first, settle: .seconds(3)) == Self.first * 8)
        }
    }
}
