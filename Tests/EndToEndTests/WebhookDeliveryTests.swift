import DropcutDaemon
import Foundation
import DropcutSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
import DropcutDigest
#endif

/// Issue 32: webhooks, end to end — the real `dropcut watch` posting to a real HTTP
/// receiver (`webhook_receiver.py`), which checks every signature with Python's own hmac,
/// as docs/connect.md tells users to. Small retry waits (`DROPCUT_WEBHOOK_BACKOFF_MS`) keep
/// the tests short; everything else is as in production.
@Suite(.tags(.slow)) struct WebhookDeliveryTests {
    static let backoff = ["DROPCUT_WEBHOOK_BACKOFF_MS": "100,500"]

    /// The events still waiting in the outbox, every endpoint's.
    static func pendingEvents(_ h: DaemonHarness) -> [String] {
        let root = (h.state as NSString).appendingPathComponent("webhooks")
        return h.files(root).flatMap { endpoint in
            h.files((root as NSString).appendingPathComponent(endpoint)).map { "\(endpoint)/\($0)" }
        }
    }

    /// Two clips done and one failed, through a receiver that answers the first attempts
    /// 500, 500 and then not within the timeout: every event arrives, once, signed, saying
    /// what happened — the outputs with their real sizes and SHA-256.
    @Test func everyEventArrivesSignedThroughFailuresAndATimeout() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0)
        let secret = WebhookReceiver.newSecret()
        let receiver = try await WebhookReceiver(secret: secret, logPath: h.dir.file("received.jsonl"),
                                                 fail: ["500", "500", "hang"], hang: 3)
        try h.writeConfig(settle: 0.1, poll: 0.1, retries: 0,
                          extraSettings: WebhookReceiver.settings(port: receiver.port, secret: secret))
        try h.drop("one.mp4")
        try h.drop("two.mp4")
        try h.write("broken.mp4", "this is a shopping list, not a video\n")
        let daemon = try h.startDaemon(environment: Self.backoff)
        #expect(await DaemonHarness.waitUntil(.seconds(120)) { receiver.delivered().count >= 3 && Self.pendingEvents(h).isEmpty },
                "delivered \(receiver.delivered().map(\.id)); pending \(Self.pendingEvents(h)); log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        let requests = receiver.requests()
        // The first three attempts failed, all of them for the same (oldest) event, retried.
        try #require(requests.count == 6, "\(requests.map { "\($0.id) \($0.answer)" })")
        #expect(requests.prefix(3).map(\.answer) == ["500", "500", "hang"])
        #expect(Set(requests.prefix(4).map(\.id)).count == 1, "\(requests.map(\.id))")
        for request in requests {
            #expect(request.signatureValid, "signature of \(request.id): \(request.headers)")
            #expect(request.timestampFresh)
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["user-agent"]?.hasPrefix("dropcut/") == true, "\(request.headers)")
        }

        // One delivery per job, each with its own stable id, and nothing else.
        let records = JobStore(stateDirectory: h.state).all()
        let delivered = receiver.delivered()
        #expect(Set(delivered.map(\.id)).count == 3)
        let byInput = Dictionary(uniqueKeysWithValues: records.map { ($0.input, $0) })
        for name in ["one.mp4", "two.mp4"] {
            let record = try #require(byInput[name], "\(records.map(\.input))")
            #expect(record.state == .done)
            let request = try #require(delivered.first { $0.id == "msg_\(record.id)_done" }, "\(delivered.map(\.id))")
            let event = request.json
            #expect(event["type"] as? String == "job.done")
            #expect(event["timestamp"] as? String != nil)
            let data = try #require(event["data"] as? [String: Any])
            #expect(data["job"] as? String == record.id)
            #expect(data["input"] as? String == name)
            #expect(data["folder"] as? String == h.folderName)
            #expect(data["attempts"] as? Int == 1)
            #expect((data["elapsed_seconds"] as? Double ?? 0) > 0)
            #expect(data["error"] == nil)
            let outputs = try #require(data["outputs"] as? [[String: Any]])
            try #require(outputs.count == 1, "\(outputs)")
            let path = try #require(outputs[0]["path"] as? String)
            #expect(path == (h.outbox as NSString).appendingPathComponent(name.replacingOccurrences(of: ".mp4", with: ".dropcut.mp4")))
            #expect(outputs[0]["sha256"] as? String == (try SHA256.hex(ofFile: path)))
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(outputs[0]["bytes"] as? Int == size)
            #expect(outputs[0]["width"] as? Int == 320 && outputs[0]["height"] as? Int == 240, "\(outputs[0])")
            #expect(abs((outputs[0]["duration"] as? Double ?? 0) - 1) < 0.1, "\(outputs[0])")
        }
        let broken = try #require(byInput["broken.mp4"])
        #expect(broken.state == .failed)
        let failure = try #require(delivered.first { $0.id == "msg_\(broken.id)_failed" }, "\(delivered.map(\.id))")
        #expect(failure.json["type"] as? String == "job.failed")
        let failed = try #require(failure.json["data"] as? [String: Any])
        #expect((failed["error"] as? String)?.contains("is not a video or audio file") == true, "\(failed)")
        #expect(failed["outputs"] == nil)
        // Each cause of failure is logged once, not once per attempt.
        let log = h.daemonLog
        #expect(log.components(separatedBy: "the receiver answered HTTP 500").count == 2, "log:\n\(log)")
        #expect(log.contains("delivering again after 3 failed attempt(s)"), "log:\n\(log)")
    }

    /// Durable: a daemon killed (SIGKILL) after its job is done but before the event is
    /// delivered (the receiver is down) delivers it after its restart, byte for byte under
    /// the id written before the kill; and a receiver away for 60 s gets every event,
    /// old and new, once it is back.
    @Test func eventsSurviveAKillAndAReceiverDownForAMinute() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0)
        let secret = WebhookReceiver.newSecret()
        let port = Int(try HTTPExchange.freePort())
        try h.writeConfig(settle: 0.1, poll: 0.1, retries: 0, extraSettings: WebhookReceiver.settings(port: port, secret: secret))
        let store = JobStore(stateDirectory: h.state)
        try h.drop("before.mp4")
        let first = try h.startDaemon(environment: Self.backoff)
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { store.all().contains { $0.state == .done } }, "log:\n\(h.daemonLog)")
        // Its attempts fail (nothing listens): the event waits in the outbox.
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { h.daemonLog.contains("Couldn't connect to server") }, "log:\n\(h.daemonLog)")
        first.signal(SIGKILL)
        #expect(await first.wait() == 128 + SIGKILL)
        let job = try #require(store.all().first).id
        let written = Self.pendingEvents(h)
        #expect(written.count == 1 && written.first?.hasSuffix("/msg_\(job)_done.json") == true, "\(written)")
        let body = try Data(contentsOf: URL(fileURLWithPath: (h.state as NSString).appendingPathComponent("webhooks/" + (written.first ?? ""))))

        // Restarted with the receiver still away: the old event waits, a new job adds its own.
        let restarted = ContinuousClock.now
        let second = try h.startDaemon(environment: Self.backoff)
        try h.drop("after.mp4", fresh: true)
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { store.all().filter { $0.state == .done }.count == 2 }, "log:\n\(h.daemonLog)")
        #expect(Self.pendingEvents(h).count == 2, "\(Self.pendingEvents(h))")
        try await Task.sleep(until: restarted + .seconds(60))
        let receiver = try await WebhookReceiver(secret: secret, logPath: h.dir.file("received.jsonl"), port: port)
        let back = ContinuousClock.now
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { receiver.delivered().count >= 2 && Self.pendingEvents(h).isEmpty },
                "delivered \(receiver.delivered().map(\.id)); log:\n\(h.daemonLog)")
        let latency = ContinuousClock.now - back
        second.signal(SIGTERM)
        #expect(await second.wait() == 0, "log:\n\(h.daemonLog)")

        let delivered = receiver.delivered()
        #expect(delivered.count == 2, "\(delivered.map(\.id))")
        let old = try #require(delivered.first { $0.id == "msg_\(job)_done" }, "\(delivered.map(\.id))")
        #expect(Data(old.body.utf8) == body)
        #expect(delivered.first?.id == old.id, "oldest first: \(delivered.map(\.id))")
        #expect(delivered.allSatisfy { $0.signatureValid })
        let after = try #require(store.all().first { $0.input == "after.mp4" })
        #expect(delivered.contains { $0.id == "msg_\(after.id)_done" })
        // The cap (0.5 s here) bounds how long a receiver that is back waits.
        #expect(latency < .seconds(5), "delivered \(latency) after the receiver came back")
        // A minute of refused connections is one warning per daemon run, not one per attempt.
        let warnings = h.daemonLog.components(separatedBy: "failed: Couldn't connect to server").count - 1
        #expect(warnings == 2, "\(warnings) warnings; log:\n\(h.daemonLog)")
    }

    /// Without webhooks nothing of them happens: no folder in the state directory, no
    /// TCP connection from the daemon.
    @Test func noWebhooksNoFolderNoConnection() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0)
        try h.drop("clip.mp4")
        let daemon = try h.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.archive) == ["clip.mp4"] }, "log:\n\(h.daemonLog)")
        let sockets = ProcessInspection.tcpSockets(of: daemon.pid)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")
        #expect(!FileManager.default.fileExists(atPath: (h.state as NSString).appendingPathComponent("webhooks")))
        #expect(sockets.isEmpty, "the daemon holds TCP sockets \(sockets)")
        #expect(!h.daemonLog.contains("webhook"), "log:\n\(h.daemonLog)")
    }
}
