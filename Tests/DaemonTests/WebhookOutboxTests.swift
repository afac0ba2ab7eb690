import Foundation
import Testing
@testable import DropcutDaemon
import TestSupport

/// The durable outbox: one file per event and endpoint, written once.
@Suite struct WebhookOutboxTests {
    let dir: TemporaryDirectory
    let outbox: WebhookOutbox
    let all: WebhookConfig
    let doneOnly: WebhookConfig

    init() throws {
        dir = try TemporaryDirectory()
        all = WebhookConfig(url: "http://127.0.0.1:9/all", secret: [UInt8](repeating: 7, count: 32))
        var done = WebhookConfig(url: "https://example.com/done", secret: [UInt8](repeating: 8, count: 32))
        done.events = [.done]
        doneOnly = done
        outbox = WebhookOutbox(stateDirectory: dir.file("state"), endpoints: [all, doneOnly], host: "h")
    }

    func event(_ job: String, _ kind: WebhookEventKind, at seconds: Double, input: String = "clip.mov") -> WebhookEvent {
        WebhookEvent(type: kind, at: Date(timeIntervalSince1970: seconds),
                     data: WebhookEvent.Job(job: job, folder: "f", host: "h", input: input, attempts: 1))
    }

    /// Written again (a crash after the event and before the record said done reruns the
    /// step), the first file stays — same bytes — and the builder is not even called.
    @Test func writingTheSameEventTwiceKeepsTheFirst() throws {
        #expect(try outbox.record(job: "j1", kind: .done) { event("j1", .done, at: 1_000) } == 2)
        let first = outbox.pending(for: all).events
        var called = false
        #expect(try outbox.record(job: "j1", kind: .done) {
            called = true
            return event("j1", .done, at: 2_000, input: "other.mov")
        } == 0)
        #expect(!called)
        let second = outbox.pending(for: all).events
        #expect(second.count == 1 && second == first)
        #expect(second.first?.event.data.input == "clip.mov")
        #expect(outbox.pending(for: doneOnly).events.map(\.id) == ["msg_j1_done"])
        // No temporary file left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: outbox.folder(for: all))
        #expect(names == ["msg_j1_done.json"])
    }

    /// Each endpoint gets only the kinds it asked for; none asked: nothing is written.
    @Test func onlyTheEndpointsThatWantAKindGetIt() throws {
        #expect(try outbox.record(job: "j2", kind: .failed) { event("j2", .failed, at: 1_000) } == 1)
        #expect(outbox.pending(for: all).events.map(\.id) == ["msg_j2_failed"])
        #expect(outbox.pending(for: doneOnly).events.isEmpty)
        let none = WebhookOutbox(stateDirectory: dir.file("state2"), endpoints: [doneOnly], host: "h")
        #expect(try none.record(job: "j3", kind: .abandoned) { event("j3", .abandoned, at: 1_000) } == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.file("state2/webhooks")))
    }

    /// Oldest first, a job's taken-over before its done at the same instant; removed
    /// events are gone for good; a file that is not an event is reported, not sent.
    @Test func pendingIsOldestFirstAndRemovalIsFinal() throws {
        try outbox.record(job: "b", kind: .done) { event("b", .done, at: 3_000) }
        try outbox.record(job: "a", kind: .done) { event("a", .done, at: 2_000) }
        try outbox.record(job: "a", kind: .takenOver) { event("a", .takenOver, at: 2_000) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: (outbox.folder(for: all) as NSString).appendingPathComponent("msg_x_done.json")))
        let (events, unreadable) = outbox.pending(for: all)
        #expect(events.map(\.id) == ["msg_a_taken_over", "msg_a_done", "msg_b_done"])
        #expect(unreadable.map { ($0.path as NSString).lastPathComponent } == ["msg_x_done.json"])
        try outbox.remove(events[0].path)
        #expect(outbox.pending(for: all).events.map(\.id) == ["msg_a_done", "msg_b_done"])
    }

    /// Endpoints' folders are named by their URL, so a reordered config keeps each one's events.
    @Test func foldersFollowTheURL() {
        let reordered = WebhookOutbox(stateDirectory: dir.file("state"), endpoints: [doneOnly, all], host: "h")
        #expect(reordered.folder(for: all) == outbox.folder(for: all))
        #expect(outbox.folder(for: all) != outbox.folder(for: doneOnly))
    }
}
