import Foundation
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport

/// The event body, its id, and the signature over it (Standard Webhooks).
@Suite struct WebhookEventTests {
    static func sample(_ kind: WebhookEventKind = .done) -> WebhookEvent {
        var data = WebhookEvent.Job(job: "20261127T131852Z-8c80351dd074", folder: "social", host: "render-1",
                                    input: "caf\\xE9 clip.mov", attempts: 2)
        data.outputs = [WebhookEvent.Output(path: "/srv/out/clip.dropcut.mp4", kind: "video", bytes: 123_456, duration: 2.5,
                                            width: 1080, height: 1920, sha256: String(repeating: "ab", count: 32))]
        data.elapsedSeconds = 3.25
        data.speed = 0.77
        return WebhookEvent(type: kind, at: Date(timeIntervalSince1970: 1_795_000_000.123), data: data)
    }

    @Test func jsonRoundTripKeepsEverything() throws {
        let event = Self.sample()
        let body = try event.encoded()
        #expect(try WebhookEvent.decoded(body) == event)
        // What receivers parse: the documented names, snake case, no escaped slashes.
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["type"] as? String == "job.done")
        #expect(object["timestamp"] as? String == "2026-11-18T11:06:40.123Z")
        let data = try #require(object["data"] as? [String: Any])
        #expect(Set(data.keys) == ["job", "folder", "host", "input", "outputs", "elapsed_seconds", "speed", "attempts"])
        #expect(String(decoding: body, as: UTF8.self).contains("\"path\":\"/srv/out/clip.dropcut.mp4\""))
        #expect(event.date == Date(timeIntervalSince1970: 1_795_000_000.123))
    }

    /// The id depends on the job and the kind only: written again after a crash, at
    /// another time, it is the same, so receivers can drop repeats.
    @Test func idIsStablePerJobAndKind() {
        let later = WebhookEvent(type: .done, at: Date(), data: Self.sample().data)
        #expect(Self.sample().id == "msg_20261127T131852Z-8c80351dd074_done")
        #expect(later.id == Self.sample().id)
        #expect(Set(WebhookEventKind.allCases.map { WebhookEvent.id(job: "j", kind: $0) })
                == ["msg_j_done", "msg_j_failed", "msg_j_taken_over", "msg_j_abandoned"])
    }

    /// Standard Webhooks' own example (the reference libraries' test vector): secret,
    /// id, timestamp and body give exactly this `webhook-signature`.
    @Test func signatureMatchesTheStandardWebhooksExample() throws {
        let secret = try #require(WebhookConfig.secret(from: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = WebhookPoster.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                                body: Data(#"{"test": 2432232314}"#.utf8), secret: secret)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    /// A failed job's event carries its reason, no outputs; a taken-over one names the job
    /// it took the claim from.
    @Test func eventsOfEachKindSayWhatHappened() {
        let folder = FolderConfig(name: "social", inbox: "/in", outbox: "/out", failed: "/failed", archive: nil)
        var record = JobRecord(id: "job-1", folder: "social", input: "clip.mov", sidecars: [], state: .failing)
        record.error = "clip.mov: is not a video or audio file dropcut can read"
        record.attempts = 1
        record.previousJobs = ["job-0"]
        let failed = JobRunner.event(.failed, record, folder: folder, host: "h")
        #expect(failed.data.error == record.error && failed.data.outputs == nil && failed.id == "msg_job-1_failed")
        let taken = JobRunner.event(.takenOver, record, folder: folder, host: "h")
        #expect(taken.data.previousJob == "job-0" && taken.data.error == nil)
    }
}
