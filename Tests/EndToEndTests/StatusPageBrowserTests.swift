import Foundation
import Testing
import TestSupport

/// The status page in a real headless Chromium (driven over the DevTools protocol by
/// `chromium_cdp.py`): after logging in with the token, the page's own script keeps a
/// running job's progress advancing without reloading, a done clip shows its thumbnail, a
/// failed one its reason, and its Retry button puts the clip back to render. The page's
/// screenshot is kept in `.build/test-artifacts/status-page.png`.
@Suite struct StatusPageBrowserTests {
    static let driver = Repository.path("Tests/EndToEndTests/chromium_cdp.py")

    static func drive(_ steps: [[String: Any]]) async throws -> [Any] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let result = try await Command.run("python3", [driver, json])
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                  "driver output: \(result.stdout) \(result.stderr)")
        if let error = output["error"] as? String { Issue.record("browser: \(error)") }
        return output["results"] as? [Any] ?? []
    }

    @Test func pageShowsProgressThumbnailsFailuresAndRetries() async throws {
        let port = try HTTPExchange.freePort()
        let token = "browser-token-0123456789abcdef"
        // Two workers: the retried clip renders beside the long one, which is not waited for.
        let harness = try DaemonHarness(settle: 0.2, poll: 0.1, workers: 2, retries: 0,
                                        extraSettings: "http:\n  listen: 127.0.0.1:\(port)\n  token: \(token)")
        let daemon = try harness.startDaemon()
        try harness.drop("done.mp4")
        try harness.drop("broken.mp4")
        // Two mistakes: the reason is two lines, which the page must show as two lines.
        try harness.write("broken.yaml", "version: 1\noutput:\n  fps: banana\n  size: nope\n")
        #expect(await DaemonHarness.waitUntil(.seconds(40)) {
            harness.files(harness.outbox).count == 1 && harness.files(harness.failed).contains("broken.mp4")
        }, "\(harness.daemonLog)")
        // The cause fixed where the clip now is; the Retry button brings both back.
        try "version: 1\n".write(toFile: harness.failed + "/broken.yaml", atomically: true, encoding: .utf8)
        // A long render to watch.
        // MPEG-4 Part 2: a render, not a copy (an untagged upright H.264 clip passes through at once).
        let long = try await Fixtures.makeClip(in: harness.dir.path, name: "long.mp4", width: 1280, height: 720, seconds: 30, videoCodec: "mpeg4")
        try FileManager.default.copyItem(atPath: long, toPath: harness.inbox + "/long.mp4")
        try harness.age(harness.inbox + "/long.mp4")

        let artifacts = Repository.path(".build/test-artifacts")
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts + "/status-page.png"
        let base = "http://127.0.0.1:\(port)"
        let progressJS = "(function(){var p=document.querySelector('ul.running li.job progress');return p?p.value:null})()"
        let results = try await Self.drive([
            ["navigate": "\(base)/login"],
            ["eval": "document.querySelector('input[name=token]').value='\(token)'; document.querySelector('form').submit(); true"],
            ["eval": "location.pathname === '/' && document.readyState === 'complete' && !!document.querySelector('section.folder')", "until": true, "timeout": 15],
            ["eval": "window.__loadedOnce = 42; true"],
            ["sample": progressJS, "distinct": 3, "timeout": 40],
            ["eval": "window.__loadedOnce === 42"],
            ["eval": "Array.from(document.querySelectorAll('ul.done img.thumb')).some(function(i){return i.complete && i.naturalWidth > 0})", "until": true, "timeout": 15],
            ["eval": "(document.querySelector('ul.failed .reason')||{}).textContent || ''"],
            ["eval": "(document.querySelector('ul.failed .reason')||{}).innerText || ''"],
            ["screenshot": screenshot],
            ["eval": "var b=document.querySelector('button.retry'); if(b){b.click()}; !!b"],
        ])
        try #require(results.count == 11, "driver results: \(results)")
        let progress = (results[4] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
        #expect(Set(progress).count >= 3 && progress == progress.sorted(), "progress the page showed: \(progress)")
        #expect(results[5] as? Bool == true, "the page reloaded while it showed progress")
        #expect(results[6] as? Bool == true, "no thumbnail loaded")
        let reason = results[7] as? String ?? ""
        #expect(reason.contains("fps"), "failure reason on the page: \(reason)")
        // Shown with its line break, not U+FFFD where the newline was.
        let shown = results[8] as? String ?? ""
        #expect(shown.contains("fps") && shown.contains("\noutput.size") || shown.contains("\n") && shown.contains("size"),
                "the reason as shown: \(shown.debugDescription)")
        #expect(!shown.contains("\u{FFFD}") && !reason.contains("\u{FFFD}"), "\(shown.debugDescription)")
        #expect(FileManager.default.fileExists(atPath: screenshot))
        #expect(results[10] as? Bool == true, "no Retry button")
        // Retried: back in the inbox with its fixed sidecar, and rendered.
        #expect(await DaemonHarness.waitUntil(.seconds(120)) { harness.files(harness.outbox).contains("broken.dropcut.mp4") },
                "outbox \(harness.files(harness.outbox)), failed \(harness.files(harness.failed)): \(harness.daemonLog)")
        // The long render is not needed any more (SIGTERM would let it finish): its worker
        // dies with the daemon.
        daemon.signal(SIGKILL)
        _ = await daemon.wait()
    }
}
