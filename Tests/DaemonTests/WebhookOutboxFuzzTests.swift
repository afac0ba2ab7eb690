import Foundation
import Testing
@testable import DropcutDaemon
import TestSupport

/// What the daemon reads back that it did not just make: the outbox's files (after a disk
/// fault, or someone's edit) and the test schedule in the environment. Mutated, they are
/// read as what they say or refused with a reason — never a trap, never an event posted
/// under another id than its file's name, never a body other than the file's bytes.
@Suite struct WebhookOutboxFuzzTests {
    @Test func mutatedEventFilesAreReadOrSetAside() throws {
        let dir = try TemporaryDirectory()
        let endpoint = WebhookConfig(url: "http://127.0.0.1:9/hook", secret: [UInt8](repeating: 5, count: 32))
        let outbox = WebhookOutbox(stateDirectory: dir.file("state"), endpoints: [endpoint], host: "h")
        var data = WebhookEvent.Job(job: "20261127T010000Z-0123456789ab", folder: "social", host: "h", input: "clip.mov", attempts: 1)
        data.outputs = [WebhookEvent.Output(path: "/srv/out/clip.dropcut.mp4", kind: "video", bytes: 10, duration: 1.5,
                                            width: 320, height: 240, sha256: String(repeating: "0", count: 64))]
        let event = WebhookEvent(type: .done, data: data)
        try outbox.record(job: data.job, kind: .done) { event }
        let path = (outbox.folder(for: endpoint) as NSString).appendingPathComponent(event.id + ".json")
        let seed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let alphabet = Array("\"\\/.{}[]:,-0123456789TZeE+ nulltruex_".utf8) + [0, 0xFF]
        var generator = SplitMix64(state: 0x5eed)
        var read = 0, refused = 0
        for _ in 0..<500 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: bytes.remove(at: at)
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let (events, unreadable) = outbox.pending(for: endpoint)
            #expect(events.count + unreadable.count == 1)
            if let pending = events.first {
                #expect(pending.id == event.id && pending.path == path && pending.body == Data(bytes))
                read += 1
            } else {
                #expect(unreadable.first.map { !$0.reason.isEmpty } == true)
                refused += 1
            }
        }
        // Both ways were taken: the mutations reached the parts that matter.
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
    }

    @Test func mutatedSchedulesAreTakenOnlyWhenWhole() {
        var generator = SplitMix64(state: 32)
        let alphabet = Array("0123456789,-+ .e".utf8)
        for _ in 0..<3000 {
            let text = String(decoding: (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! },
                              as: UTF8.self)
            guard let backoff = WebhookBackoff.fromEnvironment(["DROPCUT_WEBHOOK_BACKOFF_MS": text]) else { continue }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Int($0) }
            #expect(parts.count == 2 && backoff.first == .milliseconds(parts[0]) && backoff.cap >= backoff.first, "\(text)")
        }
    }
}
