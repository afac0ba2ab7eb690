import Foundation
import Testing
import TestSupport

/// The daemon's HTTP listener (`http:`), end to end: the real `dropcut watch` serving on
/// loopback, a real Prometheus server scraping it, and requests sent byte for byte.
@Suite(.serialized) struct HTTPListenerTests {
    static let token = "test-token-0123456789abcdef"

    static func harness(port: UInt16, token: String? = nil) throws -> DaemonHarness {
        var settings = "http:\n  listen: 127.0.0.1:\(port)"
        if let token { settings += "\n  token: \(token)" }
        return try DaemonHarness(settle: 0.2, poll: 0.1, retries: 0, extraSettings: settings)
    }

    /// Waits until the listener answers (any status).
    static func waitForListener(_ port: UInt16) async -> Bool {
        await DaemonHarness.waitUntil(.seconds(20)) { (try? HTTPExchange.request("GET", "/metrics", port: port, timeout: 2)) != nil }
    }

    /// Prometheus scrapes `/metrics` while the daemon renders 2 clips and fails 1; its query
    /// API then counts them by outcome, and promtool finds nothing wrong with the text.
    @Test func prometheusScrapesJobCountsByOutcome() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try Self.harness(port: port)
        let daemon = try harness.startDaemon()
        #expect(await Self.waitForListener(port), "the listener did not answer: \(harness.daemonLog)")

        let promPort = try HTTPExchange.freePort()
        let promDir = harness.dir.file("prometheus")
        try FileManager.default.createDirectory(atPath: promDir, withIntermediateDirectories: true)
        try """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: dropcut
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]

            """.write(toFile: promDir + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = Process()
        prometheus.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        prometheus.arguments = ["--config.file=\(promDir)/prometheus.yml", "--storage.tsdb.path=\(promDir)/data",
                                "--web.listen-address=127.0.0.1:\(promPort)", "--log.level=warn"]
        prometheus.standardOutput = FileHandle.nullDevice
        prometheus.standardError = FileHandle.nullDevice
        try prometheus.run()
        defer { prometheus.terminate(); prometheus.waitUntilExit() }

        try harness.drop("one.mp4")
        try harness.drop("two.mp4")
        try harness.write("broken.mp4", "not a video at all")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { harness.files(harness.outbox).count == 2 && harness.files(harness.failed).count == 2 },
                "outbox \(harness.files(harness.outbox)), failed \(harness.files(harness.failed)): \(harness.daemonLog)")

        // What Prometheus stored, by outcome.
        var counts: [String: Double] = [:]
        let query = "sum%20by%20(outcome)%20(dropcut_jobs_total)"
        let scraped = await DaemonHarness.waitUntil(.seconds(30)) {
            guard let response = try? HTTPExchange.request("GET", "/api/v1/query?query=\(query)", port: promPort, timeout: 2),
                  response.status == 200,
                  let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                  let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else { return false }
            counts = [:]
            for series in result {
                guard let outcome = (series["metric"] as? [String: String])?["outcome"], let value = series["value"] as? [Any],
                      let number = (value.last as? String).flatMap(Double.init) else { continue }
                counts[outcome] = number
            }
            return counts["done"] == 2 && counts["failed"] == 1
        }
        #expect(scraped, "Prometheus's counts: \(counts)")

        // promtool lints the exposition as Prometheus's own tools would.
        let metrics = try HTTPExchange.request("GET", "/metrics", port: port)
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = metrics.text
        #expect(text.contains("dropcut_render_duration_seconds_count{folder=\"\(harness.folderName)\"} 2"), "\(text)")
        #expect(text.contains("dropcut_build_info{version="))
        let lint = harness.dir.file("metrics.txt")
        try text.write(toFile: lint, atomically: true, encoding: .utf8)
        let check = try await Command.run("/bin/sh", ["-c", "promtool check metrics < '\(lint)'"])
        #expect(check.status == 0, "promtool: \(check.stdout)\(check.stderr)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// What must be refused is: paths that climb, heads and bodies too large, requests
    /// without the token, cross-site changes; and the right request retries a failed clip.
    @Test func refusesWhatItMustAndRetriesWithTheToken() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try Self.harness(port: port, token: Self.token)
        let daemon = try harness.startDaemon()
        #expect(await Self.waitForListener(port), "the listener did not answer: \(harness.daemonLog)")
        let auth = [("authorization", "Bearer \(Self.token)")]

        try harness.write("broken.mp4", "not a video at all")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { harness.files(harness.failed).contains("broken.mp4") })

        #expect(try HTTPExchange.request("GET", "/metrics", port: port).status == 401)
        #expect(try HTTPExchange.request("GET", "/api/v1/status", port: port, headers: [("authorization", "Bearer wrong-token-0123456789")]).status == 401)
        #expect(try HTTPExchange.request("GET", "/metrics", port: port, headers: auth).status == 200)
        let status = try HTTPExchange.request("GET", "/api/v1/status", port: port, headers: auth)
        #expect(status.status == 200 && status.text.contains("\"failures\""), "\(status.text)")
        // Paths that climb or hide a separator, raw.
        for target in ["/../etc/passwd", "/api/v1/jobs/..%2f..%2fetc%2fpasswd/thumbnail", "/api/v1/jobs/%2e%2e/thumbnail", "/api/v1/jobs/a%00b"] {
            let response = try HTTPExchange.request("GET", target, port: port, headers: auth)
            #expect(response.status == 400, "\(target): \(response.status) \(response.text)")
        }
        // Thumbnails only by a finished job's id: not a failed job's, not a made-up one.
        let failedID = try #require((try harness.statusJSON()["failures"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try HTTPExchange.request("GET", "/api/v1/jobs/\(failedID)/thumbnail", port: port, headers: auth).status == 404)
        #expect(try HTTPExchange.request("GET", "/api/v1/jobs/20990101T000000Z-000000000000/thumbnail", port: port, headers: auth).status == 404)
        let job = try HTTPExchange.request("GET", "/api/v1/jobs/\(failedID)", port: port, headers: auth)
        #expect(job.status == 200 && job.text.contains("\"state\" : \"failed\""), "\(job.text)")
        // Oversized head and body.
        let big = String(repeating: "a", count: 20_000)
        #expect(try HTTPExchange.request("GET", "/metrics", port: port, headers: auth + [("x-big", big)]).status == 431)
        let retryPath = "/api/v1/failed/\(harness.folderName)/broken.mp4/retry"
        #expect(try HTTPExchange.request("POST", retryPath, port: port, headers: auth, body: [UInt8](repeating: 65, count: 100_000)).status == 413)
        // Changing needs the token, and the same origin.
        #expect(try HTTPExchange.request("POST", retryPath, port: port).status == 401)
        #expect(try HTTPExchange.request("POST", retryPath, port: port, headers: auth + [("origin", "http://evil.example")]).status == 403)
        #expect(try HTTPExchange.request("POST", retryPath, port: port, headers: auth + [("sec-fetch-site", "cross-site")]).status == 403)
        #expect(try HTTPExchange.request("POST", "/api/v1/failed/\(harness.folderName)/..%2fdropcut.yaml/retry", port: port, headers: auth).status == 400)
        #expect(try HTTPExchange.request("POST", "/api/v1/failed/otherfolder/broken.mp4/retry", port: port, headers: auth).status == 404)
        #expect(harness.files(harness.failed).contains("broken.mp4"), "a refused request moved the clip")

        // The right request: back in the inbox, rendered (and failed) again.
        let retried = try HTTPExchange.request("POST", retryPath, port: port, headers: auth + [("origin", "http://127.0.0.1:\(port)")])
        #expect(retried.status == 200, "\(retried.text)")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) {
            let jobs = (try? harness.statusJSON()["failures"] as? [[String: Any]]) ?? []
            return jobs.count == 2 && harness.files(harness.failed).contains("broken.mp4")
        }, "\(harness.daemonLog)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// A listener other machines can reach needs a token: the config is refused, naming
    /// why; and an address that is taken stops the daemon with the reason.
    @Test func listenerThatCannotServeStopsTheDaemon() async throws {
        let harness = try DaemonHarness(extraSettings: "http:\n  listen: 0.0.0.0:18080")
        let result = try await DropcutProcess.run(["watch", "--config", harness.configPath])
        #expect(result.status == 78, "a config refused: EX_CONFIG")
        #expect(result.stderr.contains("http.listen 0.0.0.0:18080 is not a loopback address"), "\(result.stderr)")
        #expect(result.stderr.contains("http.token"), "\(result.stderr)")

        // An address another process holds: the daemon says so and stops (not a silent
        // daemon without its listener).
        let taken = try HTTPExchange.freePort()
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = taken.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(holder, 1) == 0 }
        }
        try #require(bound)
        let busy = try Self.harness(port: taken)
        let daemon = try busy.startDaemon()
        #expect(await daemon.wait(timeout: .seconds(60)) == 1, "\(busy.daemonLog)")
        #expect(busy.daemonLog.contains("http: cannot listen on 127.0.0.1:\(taken)"), "\(busy.daemonLog)")
    }

    /// The server-sent events carry a running job's progress, growing.
    @Test func eventStreamCarriesProgress() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try Self.harness(port: port)
        let daemon = try harness.startDaemon()
        #expect(await Self.waitForListener(port))
        // MPEG-4 Part 2: a render, not a copy (an untagged upright H.264 clip passes through at once),
        // long enough for several progress events however busy the machine (20 s gave two).
        let long = try await Fixtures.makeClip(in: harness.dir.path, name: "long.mp4", width: 1280, height: 720, seconds: 45, videoCodec: "mpeg4")
        try FileManager.default.copyItem(atPath: long, toPath: harness.inbox + "/long.mp4")
        try harness.age(harness.inbox + "/long.mp4")
        var progress: [Double] = []
        try HTTPExchange.stream("/api/v1/events", port: port, timeout: 60) { text in
            progress = text.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.compactMap { line in
                guard let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any],
                      let running = json["running"] as? [[String: Any]], let first = running.first else { return nil }
                return first["progress"] as? Double
            }
            return Set(progress.filter { $0 > 0 }).count < 3
        }
        #expect(Set(progress.filter { $0 > 0 }).count >= 3, "progress seen: \(progress)")
        #expect(progress == progress.sorted(), "progress went back: \(progress)")
        daemon.signal(SIGTERM)
        _ = await daemon.wait()
    }

    /// Without `http:` and `webhooks:`, the daemon opens no TCP socket and starts no
    /// event-loop thread; with `http:`, the same check finds both (it can fail).
    @Test func nothingListensWithoutTheKeys() async throws {
        let plain = try DaemonHarness()
        let quiet = try plain.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { plain.daemonLog.contains("ready") || FileManager.default.fileExists(atPath: plain.state + "/status.json") })
        try plain.drop("clip.mp4")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { plain.files(plain.outbox).count == 1 }, "\(plain.daemonLog)")
        let quietSockets = ProcessInspection.tcpSockets(of: quiet.pid), quietThreads = ProcessInspection.threadNames(of: quiet.pid)
        #expect(quietSockets.isEmpty, "TCP sockets of a daemon without http: \(quietSockets)")
        #expect(!quietThreads.contains { $0.hasPrefix("NIO-ELT") }, "threads: \(quietThreads)")
        #expect(!FileManager.default.fileExists(atPath: plain.state + "/webhooks"))
        quiet.signal(SIGTERM)
        #expect(await quiet.wait() == 0)

        let port = try HTTPExchange.freePort()
        let serving = try Self.harness(port: port)
        let daemon = try serving.startDaemon()
        #expect(await Self.waitForListener(port))
        let sockets = ProcessInspection.tcpSockets(of: daemon.pid), threads = ProcessInspection.threadNames(of: daemon.pid)
        #expect(sockets.contains { $0.hasSuffix("state 0A") }, "no listening socket found: \(sockets)")   // 0A: LISTEN
        #expect(threads.contains { $0.hasPrefix("NIO-ELT") }, "threads: \(threads)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// `listen: systemd`: the socket comes from systemd (`systemd-socket-activate`, which
    /// passes it as dropcut.socket would, and starts the daemon at the first connection);
    /// one on an address other machines reach, without a token, is refused at start.
    @Test func socketFromSystemdIsServedAndAPublicOneNeedsAToken() async throws {
        let harness = try DaemonHarness(extraSettings: "http:\n  listen: systemd")
        let port = try HTTPExchange.freePort()
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        FileManager.default.createFile(atPath: harness.dir.file("daemon.log"), contents: nil)
        // Not Foundation's Process: the activator closes what it inherits (`ChildProcess`).
        let activator = try ChildProcess(["/usr/bin/systemd-socket-activate", "-l", "127.0.0.1:\(port)",
                                          try BuildProducts.executable(named: "dropcut"), "watch", "--config", harness.configPath],
                                         output: harness.dir.file("daemon.log"), environment: environment)
        // The first connection starts the daemon, which answers it from the passed socket.
        var metrics: HTTPExchange.Response?
        #expect(await DaemonHarness.waitUntil(.seconds(30)) {
            metrics = try? HTTPExchange.request("GET", "/metrics", port: port, timeout: 10)
            return metrics?.status == 200
        }, "\(harness.daemonLog)")
        #expect(metrics?.text.contains("dropcut_build_info") == true)
        activator.signal(SIGTERM)
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { !activator.isRunning })

        let exposed = try DaemonHarness(extraSettings: "http:\n  listen: systemd")
        let publicPort = try HTTPExchange.freePort()
        let secondLog = exposed.dir.file("daemon.log")
        FileManager.default.createFile(atPath: secondLog, contents: nil)
        let second = try ChildProcess(["/usr/bin/systemd-socket-activate", "-l", "0.0.0.0:\(publicPort)",
                                       try BuildProducts.executable(named: "dropcut"), "watch", "--config", exposed.configPath],
                                      output: secondLog, environment: environment)
        // The first connection (once the activator listens) starts the daemon, which
        // refuses the socket and exits.
        #expect(await DaemonHarness.waitUntil(.seconds(30)) {
            if !exposed.daemonLog.contains("Communication attempt") { _ = try? HTTPExchange.request("GET", "/metrics", port: publicPort, timeout: 2) }
            return exposed.daemonLog.contains("not a loopback address")
        }, "\(exposed.daemonLog)")
        #expect(exposed.daemonLog.contains("is not a loopback address, and http.token is not set"), "\(exposed.daemonLog)")
        second.signal(SIGTERM)
    }

    /// A connection that sends half a request and then nothing is closed after the idle
    /// timeout (here 500 ms), while one that answers promptly is served; HEAD gets the head.
    @Test func idleConnectionsAreClosedAndHeadHasNoBody() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try Self.harness(port: port)
        let daemon = try harness.startDaemon(environment: ["DROPCUT_HTTP_IDLE_MS": "500"])
        #expect(await Self.waitForListener(port))
        let fd = try HTTPExchange.connect(port: port, timeout: 5)
        defer { close(fd) }
        try HTTPExchange.writeAll(fd, Array("GET /metrics HTTP/1.1\r\nhost: x\r\n".utf8))   // never finished
        let began = ContinuousClock.now
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)   // blocks until the server closes (or 5 s pass)
        let waited = ContinuousClock.now - began
        #expect(n == 0, "the idle connection was not closed (read \(n))")
        #expect(waited >= .milliseconds(400) && waited < .seconds(4), "closed after \(waited)")
        let head = try HTTPExchange.request("HEAD", "/metrics", port: port)
        #expect(head.status == 200 && head.body.isEmpty && Int(head.headers["content-length"] ?? "") ?? 0 > 0, "\(head.headers)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }
}
