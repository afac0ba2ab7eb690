import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a hostile client found on the HTTP listener (issue 45), against the real daemon on
/// loopback: connections that trickle their heads up to the descriptor limit, DNS
/// rebinding, oversize heads, absolute-form targets, `bearer` in lower case, the 405's
/// Allow, retrying clips with hostile names, and thumbnails decoded in a worker.
@Suite(.serialized) struct HTTPListenerHardeningTests {
    static let token = "hardening-token-0123456789abcdef"

    /// What a raw exchange got: the answer, and whether the server closed cleanly (EOF,
    /// not a reset).
    struct Raw {
        var response: HTTPExchange.Response?
        var bytes: [UInt8]
        var reset: Bool
    }

    /// Sends `bytes` as they are and reads until the server closes.
    static func raw(_ bytes: [UInt8], port: UInt16, timeout: Double = 10) throws -> Raw {
        let fd = try HTTPExchange.connect(port: port, timeout: timeout)
        defer { close(fd) }
        try HTTPExchange.writeAll(fd, bytes)
        var received: [UInt8] = [], reset = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { received += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            reset = n < 0
            break
        }
        return Raw(response: try? HTTPExchange.parse(received), bytes: received, reset: reset)
    }

    static func get(_ target: String, host: String, port: UInt16, headers: [(String, String)] = []) throws -> Raw {
        var head = "GET \(target) HTTP/1.1\r\nhost: \(host)\r\nconnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return try raw(Array((head + "\r\n").utf8), port: port)
    }

    /// DNS rebinding: a loopback listener without a token answers only names of this
    /// machine and the configured ones; 421 (RFC 9110 §7.4) for any other, the page and
    /// login included; a second Host header is a 400. Also absolute-form targets (their
    /// authority is the host checked).
    @Test func rebindingHostsAreRefusedAndLocalNamesAnswered() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try DaemonHarness(settle: 0.2, poll: 0.1, retries: 0,
                                        extraSettings: "http:\n  listen: 127.0.0.1:\(port)\n  allowed_hosts: [dropcut.test, Render-1]")
        let daemon = try harness.startDaemon()
        #expect(await HTTPListenerTests.waitForListener(port), "\(harness.daemonLog)")
        for host in ["localhost", "localhost:\(port)", "127.0.0.1:\(port)", "127.9.9.9:\(port)", "[::1]:\(port)", "dropcut.test:\(port)", "render-1"] {
            let answer = try Self.get("/api/v1/status", host: host, port: port)
            #expect(answer.response?.status == 200, "Host \(host): \(answer.response?.status ?? 0) \(answer.response?.text ?? "")")
        }
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.nip.example:\(port)", "dropcut.test.evil.example", "10.1.2.3:\(port)"] {
            for target in ["/api/v1/status", "/", "/login", "/metrics"] {
                let answer = try Self.get(target, host: host, port: port)
                #expect(answer.response?.status == 421, "Host \(host) \(target): \(answer.response?.status ?? 0)")
                #expect(answer.response?.text.contains("failures") != true)
            }
        }
        // No Host at all in HTTP/1.1: 400 (RFC 9112 §3.2).
        let noHost = try Self.raw(Array("GET /api/v1/status HTTP/1.1\r\nconnection: close\r\n\r\n".utf8), port: port)
        #expect(noHost.response?.status == 400)
        // Two Host headers: 400 (RFC 9112 §3.2), whichever comes first and whatever they
        // say — a good name first once let the second through.
        for (first, second) in [("localhost", "evil.example"), ("evil.example", "localhost"), ("127.0.0.1:\(port)", "127.0.0.1:\(port)")] {
            let twice = try Self.get("/api/v1/status", host: first, port: port, headers: [("Host", second)])
            #expect(twice.response?.status == 400, "Host \(first) then \(second): \(twice.response?.status ?? 0)")
            #expect(twice.response?.text.contains("one Host header") == true)
        }
        // Absolute form: accepted, its authority checked instead of the Host header.
        let absolute = try Self.get("http://127.0.0.1:\(port)/metrics", host: "evil.example", port: port)
        #expect(absolute.response?.status == 200 && absolute.response?.text.contains("dropcut_build_info") == true,
                "\(absolute.response?.status ?? 0) \(absolute.response?.text ?? "")")
        let rebound = try Self.get("http://evil.example:\(port)/metrics", host: "127.0.0.1:\(port)", port: port)
        #expect(rebound.response?.status == 421)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// `bearer` in lower case is the Bearer scheme; the 405 for GET on retry names POST;
    /// a head of 100 KiB (past the parser's own 80 KiB) is answered 431 and the
    /// connection closed cleanly after the answer (EOF, no reset).
    @Test func bearerInAnyCaseAllowHeaderAndOversizeHeads() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try HTTPListenerTests.harness(port: port, token: Self.token)
        let daemon = try harness.startDaemon()
        #expect(await HTTPListenerTests.waitForListener(port), "\(harness.daemonLog)")
        for scheme in ["bearer", "BEARER", "Bearer"] {
            let answer = try HTTPExchange.request("GET", "/metrics", port: port, headers: [("authorization", "\(scheme) \(Self.token)")])
            #expect(answer.status == 200, "\(scheme): \(answer.status)")
        }
        #expect(try HTTPExchange.request("GET", "/metrics", port: port, headers: [("authorization", "Basic \(Self.token)")]).status == 401)
        let auth = [("authorization", "Bearer \(Self.token)")]
        let getRetry = try HTTPExchange.request("GET", "/api/v1/failed/\(harness.folderName)/x.mp4/retry", port: port, headers: auth)
        #expect(getRetry.status == 405 && getRetry.headers["allow"] == "POST", "\(getRetry.status) \(getRetry.headers)")
        let postMetrics = try HTTPExchange.request("POST", "/metrics", port: port, headers: auth)
        #expect(postMetrics.status == 405 && postMetrics.headers["allow"] == "GET, HEAD", "\(postMetrics.headers)")

        for size in [20_000, 100_000, 300_000] {
            let head = "GET /metrics HTTP/1.1\r\nhost: 127.0.0.1:\(port)\r\nauthorization: Bearer \(Self.token)\r\nx-big: "
                + String(repeating: "a", count: size) + "\r\n\r\n"
            let answer = try Self.raw(Array(head.utf8), port: port)
            #expect(answer.response?.status == 431, "\(size): \(String(decoding: answer.bytes.prefix(200), as: UTF8.self))")
            #expect(!answer.reset, "\(size): the connection was reset, not closed")
        }
        // The listener still answers.
        #expect(try HTTPExchange.request("GET", "/metrics", port: port, headers: auth).status == 200)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// A client that opens connections up to the daemon's descriptor limit (256 here, set
    /// with prlimit) and trickles a header line on each every 250 ms, without the token:
    /// the token's `/metrics` answers every time throughout, a clip dropped meanwhile is
    /// rendered, the daemon never holds its limit's worth of descriptors, and the journal
    /// says once that connections are refused.
    @Test(.tags(.slow)) func trickledHeadsAtTheDescriptorLimitDoNotStopRendering() async throws {
        try Journald.ensureRunning()
        let port = try HTTPExchange.freePort()
        let harness = try HTTPListenerTests.harness(port: port, token: Self.token)
        let limit = 256
        let daemon = try harness.startDaemon(environment: ["DROPCUT_HTTP_REQUEST_MS": "3000"],
                                             wrapper: ["/usr/bin/prlimit", "--nofile=\(limit):\(limit)", "--"])
        #expect(await HTTPListenerTests.waitForListener(port), "\(harness.daemonLog)")
        #expect(harness.daemonLog.contains("descriptors: \(limit)"), "\(harness.daemonLog)")

        let attack = TrickleAttack(port: port, connections: limit, sources: 8)
        let attacker = Thread { attack.run(for: 10) }
        attacker.start()
        defer { attack.stop() }
        DaemonHarness.sleepBlocking(1.5)
        try harness.drop("during.mp4")
        var slowest: Duration = .zero, failures: [String] = [], asked = 0, mostDescriptors = 0
        var renderedDuringAttack = false
        let auth = [("authorization", "Bearer \(Self.token)")]
        while !attack.finished {
            let began = ContinuousClock.now
            do {
                let answer = try HTTPExchange.request("GET", "/metrics", port: port, headers: auth, timeout: 5)
                if answer.status != 200 { failures.append("status \(answer.status)") }
            } catch {
                failures.append("\(error)")
            }
            asked += 1
            slowest = max(slowest, ContinuousClock.now - began)
            mostDescriptors = max(mostDescriptors, (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count) ?? 0)
            if !renderedDuringAttack && harness.files(harness.outbox).contains("during.dropcut.mp4") { renderedDuringAttack = true }
            DaemonHarness.sleepBlocking(0.2)
        }
        let opened = attack.opened, peak = attack.peakOpen
        // The race happened: the client held about its limit's worth at once, and the
        // daemon closed hundreds of them (caps and deadlines) for it to open again.
        #expect(opened > 2 * limit, "only \(opened) connections were opened")
        print("trickle attack: \(opened) connections opened, \(peak) open at once on the client; \(asked) /metrics, slowest \(slowest); daemon's descriptors at most \(mostDescriptors) of \(limit)")
        #expect(peak >= limit - 8, "the attack never reached the limit: \(peak) open at once")
        #expect(failures.isEmpty, "\(failures.count) of \(asked) /metrics failed: \(failures.prefix(5))")
        // Answered, well inside a Prometheus scrape timeout (10 s by default). How fast is
        // not this test's to say: alone it is under 0.1 s, but CI runs it beside three
        // farms rendering on two cores, and a bound of 1 s failed there on load alone
        // (the latency under attack is measured in scripts/bench's "http" section).
        #expect(slowest < .seconds(3), "slowest /metrics: \(slowest)")
        #expect(mostDescriptors < limit - 32, "the daemon held \(mostDescriptors) descriptors of \(limit)")
        #expect(renderedDuringAttack || harness.files(harness.outbox).contains("during.dropcut.mp4"), "\(harness.daemonLog)")
        #expect(renderedDuringAttack, "the clip was not rendered while the attack ran: \(harness.daemonLog)")
        #expect(!harness.daemonLog.contains("unmounted"), "\(harness.daemonLog)")

        var refused: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            refused = ((try? await Journald.entries(matching: "_PID", value: "\(daemon.pid)")) ?? [])
                .filter { $0["MESSAGE"]?.contains("connections are being refused") == true }
            return !refused.isEmpty
        }
        #expect(refused.count == 1, "journal: \(refused.map { $0["MESSAGE"] ?? "" })")
        let metrics = try HTTPExchange.request("GET", "/metrics", port: port, headers: auth)
        #expect(metrics.text.contains("dropcut_http_connections_refused_total"), "\(metrics.text)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// The request deadline runs from the first byte: a head trickled a line every 100 ms is
    /// closed at the deadline (here 600 ms) though it never goes idle, while an event
    /// stream, whole at once, stays open past it.
    @Test func trickledHeadsMeetTheirDeadlineAndStreamsOutliveIt() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try HTTPListenerTests.harness(port: port)
        let daemon = try harness.startDaemon(environment: ["DROPCUT_HTTP_REQUEST_MS": "600"])
        #expect(await HTTPListenerTests.waitForListener(port))
        let trickle = try HTTPExchange.connect(port: port, timeout: 5)
        defer { close(trickle) }
        let began = ContinuousClock.now
        var closedAfter: Duration?
        var line = 0
        try HTTPExchange.writeAll(trickle, Array("GET /metrics HTTP/1.1\r\nhost: localhost\r\n".utf8))
        while ContinuousClock.now - began < .seconds(4) {
            var byte: UInt8 = 0
            let n = recv(trickle, &byte, 1, Int32(MSG_DONTWAIT))
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closedAfter = ContinuousClock.now - began; break }
            line += 1
            let header = Array("x-line-\(line): \(line)\r\n".utf8)
            _ = header.withUnsafeBytes { send(trickle, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            DaemonHarness.sleepBlocking(0.1)
        }
        #expect(closedAfter.map { $0 >= .milliseconds(500) && $0 < .seconds(2) } == true, "closed after \(String(describing: closedAfter))")

        let stream = try HTTPExchange.connect(port: port, timeout: 0.2)
        defer { close(stream) }
        try HTTPExchange.writeAll(stream, Array("GET /api/v1/events HTTP/1.1\r\nhost: localhost\r\n\r\n".utf8))
        let opened = ContinuousClock.now
        var received: [UInt8] = [], ended = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now - opened < .milliseconds(1800) {
            let n = read(stream, &buffer, buffer.count)   // 200 ms receive timeout
            if n > 0 { received += buffer[0..<n] } else if n == 0 { ended = true; break }
        }
        #expect(!ended, "the event stream was closed at the request deadline")
        #expect(String(decoding: received, as: UTF8.self).contains("text/event-stream"))
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// The daemon raises its soft descriptor limit to the hard one at start, and says so.
    @Test func softDescriptorLimitIsRaisedToTheHardOne() async throws {
        let harness = try DaemonHarness()
        let daemon = try harness.startDaemon(wrapper: ["/usr/bin/prlimit", "--nofile=200:300", "--"])
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { harness.daemonLog.contains("descriptors:") }, "\(harness.daemonLog)")
        #expect(harness.daemonLog.contains("descriptors: the soft limit raised from 200 to 300, the hard limit"), "\(harness.daemonLog)")
        let limits = (try? String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)) ?? ""
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }.map(String.init) ?? ""
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).suffix(3).prefix(2) == ["300", "300"], "\(line)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// A thumbnail is decoded in a worker process: one is caught while it decodes (a child
    /// of the daemon with the output open) and crashed from outside, as a decoder bug
    /// would; the request fails, the daemon goes on, and the next request gets the JPEG.
    @Test(.tags(.slow)) func thumbnailsAreDecodedInAWorkerThatMayCrash() async throws {
        let port = try HTTPExchange.freePort()
        let harness = try HTTPListenerTests.harness(port: port)
        let names = ["a.mp4", "b.mp4", "c.mp4", "d.mp4"]
        for name in names { try harness.drop(name) }
        let daemon = try harness.startDaemon()
        #expect(await HTTPListenerTests.waitForListener(port))
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { harness.files(harness.outbox).count == names.count }, "\(harness.daemonLog)")
        let done = try #require(try harness.statusJSON()["done"] as? [[String: Any]])
        let ids = done.compactMap { $0["id"] as? String }
        try #require(ids.count == names.count, "\(done)")
        var crashed = false
        for id in ids where !crashed {
            let target = "/api/v1/jobs/\(id)/thumbnail"
            let answer = Task.detached { try HTTPExchange.request("GET", target, port: port, timeout: 30) }
            // Polled on this thread: the worker lives for a moment.
            var worker: Int32?
            _ = DaemonHarness.waitUntilBlocking(.seconds(5)) {
                worker = ProcessInspection.children(of: daemon.pid).first { pid in
                    ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains("worker")
                }
                if worker == nil { usleep(1000) }
                return worker != nil
            }
            if let worker {
                kill(worker, SIGSEGV)
                let failed = try await answer.value
                #expect(failed.status == 500 && failed.text.contains("SIGSEGV"), "\(failed.status) \(failed.text)")
                crashed = true
                #expect(daemon.process.isRunning, "the daemon died with its thumbnail worker")
                let again = try HTTPExchange.request("GET", target, port: port, timeout: 30)
                #expect(again.status == 200 && again.headers["content-type"] == "image/jpeg" && again.body.starts(with: [0xFF, 0xD8]),
                        "\(again.status) \(again.text.prefix(200))")
            } else {
                _ = try await answer.value
            }
        }
        #expect(crashed, "no thumbnail worker was seen in \(ids.count) thumbnail requests")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// Failed clips whose names are not UTF-8 or hold a newline or an escape are retried —
    /// from the page (its form's own action, posted as its script posts it), over HTTP and
    /// with `dropcut retry` (printable form, or the name's own bytes) — back into the inbox
    /// under their own bytes, with their sidecar, and no error file left behind.
    @Test(.tags(.slow)) func clipsWithHostileNamesAreRetriedFromThePageOverHTTPAndTheCLI() async throws {
        let port = try HTTPExchange.freePort()
        // Settling takes 2 s: a retried clip is not failed again before it is looked at.
        let harness = try DaemonHarness(settle: 2, poll: 0.1, retries: 0,
                                        extraSettings: "http:\n  listen: 127.0.0.1:\(port)\n  token: \(Self.token)")
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]   // café in Latin-1
        let clips: [[UInt8]] = [latin1 + Array(".mp4".utf8), Array("two\nlines.mp4".utf8), Array("esc\u{1b}[31m.mp4".utf8),
                                Array("cli\nname.mp4".utf8), latin1 + Array("-cli.mp4".utf8)]
        for clip in clips { try harness.write(bytes: clip, "not a video at all") }
        try harness.write(bytes: latin1 + Array(".yaml".utf8), "version: 1\n")
        let daemon = try harness.startDaemon()
        #expect(await HTTPListenerTests.waitForListener(port))
        #expect(await DaemonHarness.waitUntil(.seconds(60)) {
            Set(harness.entries(harness.failed)).isSuperset(of: clips) && harness.files(harness.failed).filter { $0.hasSuffix(".error.txt") }.count == clips.count
        }, "failed: \(harness.files(harness.failed)): \(harness.daemonLog)")
        let auth = [("authorization", "Bearer \(Self.token)"), ("origin", "http://127.0.0.1:\(port)")]
        func errorFiles() -> [String] { harness.files(harness.failed).filter { $0.hasSuffix(".error.txt") } }

        // From the page: each form's action, posted as the page's script does. A clip's
        // error file is written a moment before its record says failed (the page lists
        // records), so the page is read until it lists them all.
        var actions: [String] = []
        _ = await DaemonHarness.waitUntil(.seconds(10)) {
            let page = (try? HTTPExchange.request("GET", "/", port: port, headers: auth).text) ?? ""
            actions = page.components(separatedBy: "action=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
                .filter { $0.hasSuffix("/retry") }
                .map { $0.replacingOccurrences(of: "&amp;", with: "&") }
            return actions.count >= clips.count
        }
        #expect(actions.count == clips.count, "retry forms on the page: \(actions)")
        for (clip, printable) in [(clips[0], #"caf\xE9.mp4"#), (clips[1], #"two\x0Alines.mp4"#), (clips[2], #"esc\x1B[31m.mp4"#)] {
            let encoded = printable.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))!
            let action = try #require(actions.first { $0.hasSuffix("/\(encoded)/retry") }, "\(printable) not among \(actions)")
            let answer = try HTTPExchange.request("POST", action, port: port, headers: auth)
            #expect(answer.status == 200, "\(printable): \(answer.status) \(answer.text)")
            #expect(harness.entries(harness.inbox).contains(clip), "\(printable) is not back in the inbox under its bytes")
            #expect(!errorFiles().contains(printable + ".error.txt"), "\(printable): its error file was left: \(errorFiles())")
        }
        // The Latin-1 clip's sidecar went with it.
        #expect(harness.entries(harness.inbox).contains(latin1 + Array(".yaml".utf8)))

        // `dropcut retry`, the daemon stopped: the name as shown, and a name's own bytes.
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        for (clip, argument) in [(clips[3], "cli\nname.mp4"), (clips[4], #"caf\xE9-cli.mp4"#)] {
            let result = try await DropcutProcess.run(["retry", "--config", harness.configPath, harness.folderName, argument])
            #expect(result.status == 0, "\(argument.debugDescription): \(result.stderr)")
            #expect(harness.entries(harness.inbox).contains(clip), "\(argument.debugDescription) not back in the inbox")
        }
        #expect(errorFiles().isEmpty, "error files left: \(errorFiles())")
        #expect(harness.entries(harness.failed).isEmpty, "\(harness.files(harness.failed))")
    }
}

/// Connections that each send a request line and then one header line every 250 ms,
/// never finishing, from several loopback addresses; one closed by the server is opened
/// again. Runs on a thread of its own.
final class TrickleAttack: @unchecked Sendable {
    let port: UInt16
    let connections: Int
    let sources: Int
    private let lock = NSLock()
    private var stopped = false
    private var done = false
    private var openedCount = 0
    private var peak = 0

    init(port: UInt16, connections: Int, sources: Int) {
        self.port = port
        self.connections = connections
        self.sources = sources
    }

    var finished: Bool { lock.withLock { done } }
    var opened: Int { lock.withLock { openedCount } }
    var peakOpen: Int { lock.withLock { peak } }
    func stop() { lock.withLock { stopped = true } }

    /// A connection from 127.0.0.`1 + n % sources` (the token's client is 127.0.0.1 too), or -1.
    func open(_ n: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var limit = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        source.sin_addr.s_addr = (UInt32(0x7f00_0001) + UInt32(n % sources)).bigEndian
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        target.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let ok = withUnsafePointer(to: &source) { s in
            withUnsafePointer(to: &target) { t in
                s.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                    && t.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
        guard ok else { close(fd); return -1 }
        let line = Array("GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\n".utf8)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        lock.withLock { openedCount += 1 }
        return fd
    }

    func run(for seconds: Double) {
        var fds = [Int32](repeating: -1, count: connections)
        let end = Date().addingTimeInterval(seconds)
        var round = 0
        while Date() < end && !lock.withLock({ stopped }) {
            var byte: UInt8 = 0
            for i in fds.indices {
                if fds[i] >= 0 {
                    let n = recv(fds[i], &byte, 1, Int32(MSG_DONTWAIT))
                    let line = Array("x-trickle-\(round): \(i)\r\n".utf8)
                    let sent = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ? -1
                        : line.withUnsafeBytes { send(fds[i], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    if sent < 0 {
                        close(fds[i])
                        fds[i] = -1
                    }
                }
                if fds[i] < 0 { fds[i] = open(i) }
            }
            let open = fds.filter { $0 >= 0 }.count
            lock.withLock { peak = max(peak, open) }
            round += 1
            Thread.sleep(forTimeInterval: 0.25)
        }
        for fd in fds where fd >= 0 { close(fd) }
        lock.withLock { done = true }
    }
}
