import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Several hosts on one shared inbox (issue 19). Each "host" is a real `dropcut watch` —
/// its own state folder, its own host name (`DROPCUT_HOSTNAME`) — and all of them reach
/// the same inbox, outbox, archive and failed folder: host A through the directory itself,
/// host B either through the same directory or through an sshfs mount of it (the test's
/// own sshd on 127.0.0.1: a real network filesystem, its own caches and inode numbers).
/// Hosts are killed (SIGKILL) and paused (SIGSTOP, the daemon and its worker both, as a
/// paused VM is) for real; the journal is a real journald. Serialized: the lease timings
/// must not compete with each other for the two cores.
@Suite(.serialized, .tags(.slow)) struct ScaleOutTests {
    /// How host B reaches the shared folders.
    enum Reach: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case directory, sshfs
        var testDescription: String { rawValue }
    }

    /// The shared folders (inbox, outbox, failed, archive) under `root`, and the path each
    /// host reaches them by: `root` itself, or (host B, `.sshfs`) an sshfs mount of it.
    final class Share: @unchecked Sendable {
        let harness: DaemonHarness
        let server: SFTPServer?
        let mount: SSHFSMount?
        /// The folders as they are (host A's way to them, and the test's).
        let root: String

        init(_ reach: Reach) throws {
            harness = try DaemonHarness(settle: 0.2, poll: 0.1)
            switch reach {
            case .directory:
                server = nil
                mount = nil
                root = harness.dir.path
            case .sshfs:
                let server = try SFTPServer()
                self.server = server
                root = server.export
                // Directory entries cached 1 s, as docs/scale-out.md asks of inboxes on sshfs.
                mount = try SSHFSMount(server, options: ["dcache_timeout=1"])
            }
            for folder in ["inbox", "outbox", "failed", "archive"] {
                try FileManager.default.createDirectory(atPath: file(folder), withIntermediateDirectories: true)
            }
        }

        deinit {
            mount?.unmount()
            server?.stop()
        }

        func file(_ name: String) -> String { (root as NSString).appendingPathComponent(name) }
        var inbox: String { file("inbox") }
        var outbox: String { file("outbox") }
        var archive: String { file("archive") }
        var failed: String { file("failed") }
        var folderName: String { harness.folderName }

        /// Where host B finds the folders.
        var remote: String { mount?.path ?? root }

        func files(_ folder: String, hidden: Bool = false) -> [String] { harness.files(folder, hidden: hidden) }

        /// Everything under `<inbox>/.dropcut/claimed`.
        func claimedLeftovers() -> [String] {
            ((FileManager.default.enumerator(atPath: file("inbox/.dropcut/claimed"))?.allObjects as? [String]) ?? []).sorted()
        }
    }

    /// One host of the test: its config (the shared folders as it reaches them, its own
    /// state folder), its log and its running daemon.
    final class Host: @unchecked Sendable {
        let name: String
        let config: String
        let state: String
        let logName: String
        let harness: DaemonHarness
        /// The inbox as this host reaches it.
        let inbox: String
        var daemon: DaemonHarness.Daemon?
        /// How its daemon is started (`ip netns exec NS`: a host in a network namespace of
        /// its own), and what is added to its environment (a clock set off by libfaketime).
        var launcher: [String] = []
        var environment: [String: String] = [:]

        /// `coordinator`: the PostgreSQL URL of a database coordinator (`FarmTests`).
        init(_ name: String, _ share: Share, via root: String, leaseTimeout: Double, coordinator: String? = nil) throws {
            self.name = name
            inbox = (root as NSString).appendingPathComponent("inbox")
            harness = share.harness
            config = harness.dir.file("\(name).yaml")
            state = harness.dir.file("state-\(name)")
            logName = "\(name).log"
            let folder = { (name: String) in (root as NSString).appendingPathComponent(name) }
            try """
                state_dir: \(state)
                poll_interval: 0.1
                settle: 0.2
                workers: 1
                retry_delay: 0.2
                stop_timeout: 10
                lease_timeout: \(leaseTimeout)
                \(coordinator.map { "coordinator: \($0)" } ?? "")
                folders:
                  - name: \(share.folderName)
                    inbox: \(folder("inbox"))
                    outbox: \(folder("outbox"))
                    failed: \(folder("failed"))
                    archive: \(folder("archive"))

                """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// Host A (the directory itself) and host B (`reach`).
        static func pair(_ share: Share, leaseTimeout: Double) throws -> (Host, Host) {
            (try Host("host-a", share, via: share.root, leaseTimeout: leaseTimeout),
             try Host("host-b", share, via: share.remote, leaseTimeout: leaseTimeout))
        }

        /// Starts its daemon and waits until it is ready (recovery done, watching).
        /// Polls on this thread (blocking it): a host is started while the other renders a
        /// clip for a few seconds, and the test must act within them.
        func start(waitForReady: Bool = true) throws {
            daemon = try harness.startDaemon(environment: environment.merging(["DROPCUT_HOSTNAME": name]) { $1 }, config: config,
                                             log: logName, wrapper: launcher)
            guard waitForReady else { return }
            let ready = DaemonHarness.waitUntilBlocking(.seconds(30)) { self.log.contains("dropcut ready") }
            #expect(ready, "\(name) did not get ready:\n\(log)")
        }

        var log: String { (try? String(contentsOfFile: harness.dir.file(logName), encoding: .utf8)) ?? "" }
        var pid: Int32 { daemon?.pid ?? 0 }

        /// Its job records.
        var records: [JobRecord] { JobStore(stateDirectory: state).all() }

        /// SIGTERM, and the exit status.
        @discardableResult
        func stop() async -> Int32? {
            daemon?.signal(SIGTERM)
            return await daemon?.wait()
        }

        /// SIGKILLs this host (its `worker` dies with it) and waits on this thread — a busy
        /// pool cannot add to the latency — until `taker` logs that it took `clip` over;
        /// returns the time from the kill.
        func killed(worker: Int32, takenOverBy taker: Host, clip: String, lease: Double,
                    sourceLocation: SourceLocation = #_sourceLocation) -> Duration {
            daemon?.signal(SIGKILL)
            let killed = ContinuousClock.now
            #expect(daemon?.waitBlocking() == 128 + SIGKILL, sourceLocation: sourceLocation)
            #expect(DaemonHarness.waitUntilBlocking(.seconds(5)) { kill(worker, 0) != 0 }, "the worker dies with its daemon",
                    sourceLocation: sourceLocation)
            #expect(DaemonHarness.waitUntilBlocking(.seconds(lease + 10)) { taker.log.contains("took over \(clip)") }, "\(taker.log)",
                    sourceLocation: sourceLocation)
            return ContinuousClock.now - killed
        }

        /// `dropcut status` with this host's config: its text. (Blocking, as `status`.)
        func statusText() throws -> String {
            try DropcutProcess.run(["status", "--config", config]).stdout
        }

        /// The daemon's worker processes (its children).
        var workers: [Int32] { ProcessInspection.children(of: pid) }

        /// `dropcut status --json` with this host's config, parsed.
        func status() throws -> [String: Any] {
            let result = try DropcutProcess.run(["status", "--json", "--config", config])
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return try #require(object, "\(result.stderr)")
        }
    }

    /// A clip of `seconds` at `size`, made once per test and copied into the inbox under
    /// each name.
    static func drop(_ names: [String], into share: Share, seconds: Double, size: String) throws {
        let h = share.harness
        let template = h.dir.file("template-\(size)-\(seconds).mp4")
        if !FileManager.default.fileExists(atPath: template) {
            // MPEG-4 Part 2: every drop is a render that takes its time (an untagged upright
            // H.264 clip would pass through at once).
            try Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-f", "lavfi",
                                   "-i", "sine=frequency=440:sample_rate=48000", "-c:v", "mpeg4", "-c:a", "aac", "-t", "\(seconds)"],
                                  output: template)
        }
        for name in names {
            let path = (share.inbox as NSString).appendingPathComponent(name)
            try FileManager.default.copyItem(atPath: template, toPath: path)
            try h.age(path)
        }
    }

    /// The journal entries of `event` for this test's folder.
    static func journal(_ event: MessageID, _ h: Share, atLeast count: Int = 1) async -> [[String: String]] {
        var entries: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            entries = ((try? await Journald.entries(matching: "MESSAGE_ID", value: event.rawValue)) ?? [])
                .filter { $0["DROPCUT_FOLDER"] == h.folderName }
            return entries.count >= count
        }
        return entries
    }

    // MARK: Tests

    /// Two hosts, forty small clips dropped at once: each clip is rendered exactly once
    /// (one output each, no `-1`), every original archived once, nothing left claimed and
    /// no temporary file anywhere — and both hosts did part of the work.
    @Test(arguments: Reach.allCases)
    func twoHostsShareFortyClipsAndRenderEachOnce(_ reach: Reach) async throws {
        let h = try Share(reach)
        let (a, b) = try Host.pair(h, leaseTimeout: 3)
        try a.start()
        try b.start()
        let names = (0..<40).map { String(format: "c%02d.mp4", $0) }
        let started = ContinuousClock.now
        try Self.drop(names, into: h, seconds: 0.2, size: "64x64")
        let finished = await DaemonHarness.waitUntil(.seconds(120)) { h.files(h.archive).count >= 40 && h.files(h.outbox).count >= 40 }
        let elapsed = ContinuousClock.now - started
        #expect(finished, "outbox \(h.files(h.outbox).count), archive \(h.files(h.archive).count)\nA:\n\(a.log)\nB:\n\(b.log)")
        #expect(await a.stop() == 0)
        #expect(await b.stop() == 0)

        let outputs = names.map { ($0 as NSString).deletingPathExtension + ".dropcut.mp4" }
        #expect(h.files(h.outbox, hidden: true) == outputs, "no duplicate, no temporary file")
        #expect(h.files(h.archive, hidden: true) == names, "each original archived once")
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.inbox) == [] && h.files(h.failed) == [])
        // Each a complete MP4 (ffprobe on every eighth: the others as their first bytes say).
        for (index, output) in outputs.enumerated() {
            let path = (h.outbox as NSString).appendingPathComponent(output)
            let data = FileManager.default.contents(atPath: path) ?? Data()
            #expect(data.count > 1000 && data[4..<8] == Data("ftyp".utf8), "\(output) is not an MP4")
            guard index % 8 == 0 else { continue }
            let duration = try FFprobe.format(of: path).duration.flatMap(Double.init)
            #expect(duration.map { abs($0 - 0.2) < 0.05 } == true, "\(output): \(String(describing: duration))")
        }
        // The work was shared, and each clip is one host's done job.
        let doneA = a.records.filter { $0.state == .done }.map(\.input), doneB = b.records.filter { $0.state == .done }.map(\.input)
        #expect(Set(doneA).isDisjoint(with: doneB))
        #expect(Set(doneA + doneB) == Set(names) && doneA.count + doneB.count == 40)
        #expect(!doneA.isEmpty && !doneB.isEmpty, "A \(doneA.count), B \(doneB.count)")
        print("ScaleOutTests (\(reach)): 40 clips on 2 hosts in \(elapsed) (A \(doneA.count), B \(doneB.count))")
    }

    /// Host A is killed (SIGKILL, its worker with it) while rendering and never comes
    /// back: host B takes its claim over within lease_timeout and one poll of the kill,
    /// renders the clip once, removes A's temporary output, and says so in the journal.
    @Test(arguments: Reach.allCases)
    func aKilledHostsClaimIsTakenOverAndRenderedOnce(_ reach: Reach) async throws {
        try Journald.ensureRunning()
        let lease = 3.0, poll = 0.1
        let h = try Share(reach)
        let (a, b) = try Host.pair(h, leaseTimeout: lease)
        try a.start()
        // Long enough to render that A is still at it after the status checks below (a
        // 640x480 clip copies its sound now and re-encodes in about 2 s: the worker could
        // be gone before the kill).
        try Self.drop(["long.mp4"], into: h, seconds: 20, size: "1280x720")
        // Blocking from here to the kill: the kill must land while A renders.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { a.log.contains("rendering long.mp4") }, "\(a.log)")
        // A says so just before it starts the worker: wait for the process itself.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(10)) { !a.workers.isEmpty }, "\(a.log)")
        let worker = try #require(a.workers.first, "A's worker, once A says it renders")
        // B's `dropcut status` before B runs reads the claims itself: each just seen.
        let first = try #require((try b.status()["claims"] as? [[String: Any]])?.first)
        #expect(first["input"] as? String == "long.mp4" && (first["owner"] as? [String: Any])?["host"] as? String == "host-a")
        #expect(first["lease_seen"] as? String == "just seen" && first["lease_age_seconds"] is NSNull, "\(first)")
        let text = try b.statusText()
        #expect(text.contains("  in \(b.inbox) (folder \(h.folderName)):\n    long.mp4  rendering  host-a pid \(a.pid), job "), "\(text)")
        #expect(text.contains("lease just seen"), "\(text)")
        try b.start()
        // B sees A's claim: owner, state, and a lease age by B's own clock.
        DaemonHarness.sleepBlocking(1.5)   // blocking: A is still rendering after it, however busy the pool
        let status = try b.status()
        let claims = try #require(status["claims"] as? [[String: Any]])
        let claim = try #require(claims.first { $0["input"] as? String == "long.mp4" }, "\(claims)")
        let owner = try #require(claim["owner"] as? [String: Any])
        #expect(owner["host"] as? String == "host-a" && owner["pid"] as? Int == Int(a.pid))
        #expect(claim["state"] as? String == "rendering" && claim["mine"] as? Bool == false)
        #expect((claim["lease_age_seconds"] as? Double).map { $0 < lease } == true, "\(claim)")
        #expect(claim["expired"] as? Bool == false)

        #expect(kill(worker, 0) == 0, "A's worker is still rendering when A is killed")
        let latency = a.killed(worker: worker, takenOverBy: b, clip: "long.mp4", lease: lease)
        #expect(latency < .seconds(lease + poll + 1), "takeover \(latency) after the kill")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.archive) == ["long.mp4"] }, "\(b.log)")
        #expect(await b.stop() == 0)

        #expect(h.files(h.outbox, hidden: true) == ["long.dropcut.mp4"], "one output; A's temporary output removed")
        #expect(h.claimedLeftovers() == [])
        let duration = try FFprobe.format(of: (h.outbox as NSString).appendingPathComponent("long.dropcut.mp4")).duration.flatMap(Double.init)
        #expect(duration.map { abs($0 - 20) < 0.1 } == true)
        let jobA = try #require(a.records.first)
        let jobB = try #require(b.records.first { $0.input == "long.mp4" })
        #expect(jobB.state == .done && jobB.previousJobs == [jobA.id])
        #expect(jobB.history == ["attempt 1: interrupted: host-a (pid \(a.pid)) stopped renewing its lease while its worker was rendering (not counted against the clip)"])
        #expect(jobB.attempts == 1, "the holder's interrupted render is given back: B's render is attempt 1")

        let taken = await Self.journal(.jobTakenOver, h)
        #expect(taken.count == 1)
        let entry = try #require(taken.first)
        #expect(entry["_PID"] == String(b.pid) && entry["PRIORITY"] == "5")
        #expect(entry["DROPCUT_PREVIOUS_HOST"] == "host-a" && entry["DROPCUT_PREVIOUS_JOB"] == jobA.id && entry["DROPCUT_JOB"] == jobB.id)
        #expect(entry["DROPCUT_LEASE_AGE_MS"].flatMap(Int.init).map { $0 >= Int(lease * 1000) } == true)
        #expect(try JournalCatalog.missingFields(for: MessageID.jobTakenOver.rawValue, in: entry) == [])
        print("ScaleOutTests (\(reach)): takeover \(latency) after SIGKILL (lease_timeout \(lease) s, poll \(poll) s)")
    }

    /// Host B is paused (SIGSTOP, daemon and worker: a suspended VM) while rendering, for
    /// longer than lease_timeout. A takes the claim over and finishes the clip. When B
    /// wakes (SIGCONT), it finds its claim gone, abandons the job — temporary output
    /// removed, nothing published, the output A made untouched — logs why, and goes on to
    /// render a new clip.
    @Test(arguments: Reach.allCases)
    func aPausedHostAbandonsItsTakenOverJobAndGoesOn(_ reach: Reach) async throws {
        try Journald.ensureRunning()
        let lease = 3.0
        let h = try Share(reach)
        let (a, b) = try Host.pair(h, leaseTimeout: lease)
        // The host paused is B: through sshfs, its renewal and its clean-up go over the
        // network filesystem (the kill test has B, through sshfs, take over instead).
        let (paused, other) = (b, a)
        try paused.start()
        try Self.drop(["long.mp4"], into: h, seconds: 20, size: "640x480")
        // Blocking from here to the SIGSTOP: the clip renders in about 2 s.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { paused.log.contains("rendering long.mp4") }, "\(paused.log)")
        try other.start()
        let workers = paused.workers
        #expect(workers.count == 1, "\(workers)")
        for pid in [paused.pid] + workers { kill(pid, SIGSTOP) }
        let stopped = ContinuousClock.now
        #expect(await DaemonHarness.waitUntil(.seconds(lease + 10)) { other.log.contains("took over long.mp4") }, "\(other.log)")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { other.log.contains("done long.mp4") }, "\(other.log)")
        let output = (h.outbox as NSString).appendingPathComponent("long.dropcut.mp4")
        let before = try FileManager.default.attributesOfItem(atPath: output)
        #expect(ContinuousClock.now - stopped > .seconds(lease))

        // A wakes up: it must find out, give up, and publish nothing.
        for pid in workers + [paused.pid] { kill(pid, SIGCONT) }
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { paused.log.contains("abandoned long.mp4") }, "\(paused.log)")
        DaemonHarness.sleepBlocking(1)
        #expect(h.files(h.outbox, hidden: true) == ["long.dropcut.mp4"], "nothing published by A, its temporary output gone")
        #expect(h.files(h.archive, hidden: true) == ["long.mp4"])
        #expect(h.claimedLeftovers() == [])
        let after = try FileManager.default.attributesOfItem(atPath: output)
        #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
        #expect(after[.size] as? Int == before[.size] as? Int && after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        let abandoned = try #require(paused.records.first { $0.input == "long.mp4" })
        #expect(abandoned.state == .abandoned)
        #expect(abandoned.error?.contains("another host") == true, "\(abandoned.error ?? "")")
        #expect(paused.workers.isEmpty, "its worker was stopped")

        // It goes on: with the other host gone, a new clip is A's to render.
        #expect(await other.stop() == 0)
        try Self.drop(["after.mp4"], into: h, seconds: 0.5, size: "64x64")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { paused.log.contains("done after.mp4") }, "\(paused.log)")
        #expect(h.files(h.outbox) == ["after.dropcut.mp4", "long.dropcut.mp4"])
        #expect(await paused.stop() == 0)

        let abandonments = await Self.journal(.jobAbandoned, h)
        #expect(abandonments.count == 1)
        let entry = try #require(abandonments.first)
        #expect(entry["_PID"] == String(paused.pid) && entry["PRIORITY"] == "4")
        #expect(entry["DROPCUT_INPUT"] == (paused.inbox as NSString).appendingPathComponent("long.mp4"))
        // Named when the taker's claim is still there to read (here it has usually finished).
        #expect(entry["DROPCUT_TAKEN_OVER_BY"] == nil || entry["DROPCUT_TAKEN_OVER_BY"] == other.name, "\(entry)")
        #expect(try JournalCatalog.missingFields(for: MessageID.jobAbandoned.rawValue, in: entry) == [])
        let taken = await Self.journal(.jobTakenOver, h)
        #expect(taken.count == 1 && taken.first?["_PID"] == String(other.pid))
        print("ScaleOutTests (\(reach)): paused host \(paused.name) abandoned its job; \(other.name) took it over")
    }
}
