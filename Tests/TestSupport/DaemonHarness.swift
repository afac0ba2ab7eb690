import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A watched folder set up in a temporary directory (inbox, outbox, failed, archive,
/// state) with a config file, and the real `dropcut watch` run on it: `--once`, or as a
/// background daemon to signal and kill.
public final class DaemonHarness: @unchecked Sendable {
    public let dir: TemporaryDirectory
    /// Unique per harness: the journal entries of this test are found by DROPCUT_FOLDER.
    public let folderName: String
    public var inbox: String { dir.file("inbox") }
    public var outbox: String { dir.file("outbox") }
    public var failed: String { dir.file("failed") }
    public var archive: String { dir.file("archive") }
    public var state: String { dir.file("state") }
    public var configPath: String { dir.file("dropcut.yaml") }

    public init(settle: Double = 0.2, poll: Double = 0.1, workers: Int = 1, retries: Int = 2, retryDelay: Double = 0.2,
         stopTimeout: Double = 10, state: String = "state", extraFolders: String = "", extraSettings: String = "") throws {
        dir = try TemporaryDirectory(prefix: "dropcut-daemon")
        folderName = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try writeConfig(settle: settle, poll: poll, workers: workers, retries: retries, retryDelay: retryDelay,
                        stopTimeout: stopTimeout, state: state, extraFolders: extraFolders, extraSettings: extraSettings)
    }

    public func writeConfig(settle: Double = 0.2, poll: Double = 0.1, workers: Int = 1, retries: Int = 2, retryDelay: Double = 0.2,
                     stopTimeout: Double = 10, state: String = "state", extraFolders: String = "", extraSettings: String = "",
                     to path: String? = nil) throws {
        let text = """
            state_dir: \(state)
            poll_interval: \(poll)
            settle: \(settle)
            workers: \(workers)
            retry_delay: \(retryDelay)
            stop_timeout: \(stopTimeout)
            \(extraSettings)
            folders:
              - name: \(folderName)
                inbox: inbox
                outbox: outbox
                failed: failed
                archive: archive
                retries: \(retries)
            \(extraFolders.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))

            """
        try text.write(toFile: path ?? configPath, atomically: true, encoding: .utf8)
    }

    /// A 320x240 clip with a tone, made once per harness and copied for each drop. Its
    /// video is MPEG-4 Part 2, so every drop is a render that takes its time, as the
    /// daemon's tests need (a worker to catch, a job to interrupt): an untagged upright
    /// H.264 clip would pass through in milliseconds.
    private var template: String?
    public func clip(seconds: Int = 1) throws -> String {
        if let template { return template }
        let made = try Fixtures.makeClip(in: dir.path, name: "template.mp4", seconds: seconds, videoCodec: "mpeg4")
        template = made
        return made
    }

    /// Drops a copy of the template clip into the inbox as `name`, its mtime in the past
    /// unless `fresh` (older first; it still settles only after `settle` from first sight).
    @discardableResult
    public func drop(_ name: String, fresh: Bool = false) throws -> String {
        let path = (inbox as NSString).appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: try clip(), toPath: path)
        if !fresh { try age(path) }
        return path
    }

    /// Writes a file into the inbox (a recipe, a broken clip), aged unless `fresh`.
    @discardableResult
    public func write(_ name: String, _ contents: String, fresh: Bool = false) throws -> String {
        let path = (inbox as NSString).appendingPathComponent(name)
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        if !fresh { try age(path) }
        return path
    }

    public func age(_ path: String) throws {
        let past = Date().addingTimeInterval(-60)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path)
    }

    /// The names in `folder`, sorted; hidden ones (the inbox's `.dropcut`, temporary
    /// outputs) only with `hidden`.
    public func files(_ folder: String, hidden: Bool = false) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { hidden || !$0.hasPrefix(".") }.sorted()
    }

    /// Everything under `<inbox>/.dropcut/claimed`.
    public func claimedLeftovers() -> [String] {
        let claimed = (inbox as NSString).appendingPathComponent(".dropcut/claimed")
        return ((FileManager.default.enumerator(atPath: claimed)?.allObjects as? [String]) ?? []).sorted()
    }

    /// `dropcut watch --once` on this config.
    public func runOnce(environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try Command.run(BuildProducts.executable(named: "dropcut"), ["watch", "--once", "--config", configPath],
                        environment: environment)
    }

    /// The blocking `runOnce`, for a run whose time is measured (see `Command.runBlocking`).
    public func runOnceBlocking(environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runOnce(environment: environment)
    }

    /// `runOnce`, awaited without holding a thread of the concurrency pool (`OwnThread`).
    public func runOnce(environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Command.run(BuildProducts.executable(named: "dropcut"), ["watch", "--once", "--config", configPath],
                              environment: environment)
    }

    /// `dropcut status --json` parsed.
    public func statusJSON() throws -> [String: Any] {
        let result = try DropcutProcess.run(["status", "--json", "--config", configPath])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw CommandError(command: ["dropcut", "status", "--json"], status: result.status, stderr: result.stderr + result.stdout)
        }
        return object
    }

    /// Starts `dropcut watch` in the background, its stderr appended to `log` (in the
    /// harness's folder).
    /// `wrapper`: a command prefix that execs the daemon in place of itself, such as
    /// `prlimit --nofile=256:256 --` or `ip netns exec NS`: the process is still the daemon.
    public func startDaemon(environment: [String: String] = [:], config: String? = nil, log logName: String = "daemon.log",
                     wrapper: [String] = []) throws -> Daemon {
        let process = Process()
        let command = wrapper + [try BuildProducts.executable(named: "dropcut"), "watch", "--config", config ?? configPath]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = nil
        env["JOURNAL_STREAM"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let logPath = dir.file(logName)
        if !FileManager.default.fileExists(atPath: logPath) { FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return Daemon(process: process, logPath: logPath)
    }

    public var daemonLog: String { (try? String(contentsOfFile: dir.file("daemon.log"), encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds, polling, up to `timeout`; returns whether it did.
    /// Between polls it sleeps with `Task.sleep`, which leaves the thread to other tests:
    /// the concurrency pool has only as many threads as cores, and a test that blocked one
    /// while a daemon works (or a lease runs out) would leave that core idle.
    @discardableResult
    public static func waitUntil(_ timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// `waitUntil` polling on this thread, for the few waits that time what they wait for
    /// (a takeover's latency after a kill): an awaited poll resumes only once a pool thread
    /// is free, which a busy parallel suite can delay by seconds, and the time measured would
    /// be the pool's, not the daemon's. Blocks the pool thread: use it for short waits only.
    @discardableResult
    public static func waitUntilBlocking(_ timeout: Duration = .seconds(30), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    /// Sleeps on this thread (blocking it), for the few sleeps after which the test must act
    /// at once: an awaited sleep resumes only once a pool thread is free.
    public static func sleepBlocking(_ seconds: Double) {
        Thread.sleep(forTimeInterval: seconds)
    }

    /// `waitUntil` for a condition that itself awaits (journalctl through the async
    /// `Journald.entries`, say).
    @discardableResult
    public static func waitUntilAsync(_ timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// A running daemon process.
    public final class Daemon: @unchecked Sendable {
        public let process: Process
        public let logPath: String
        public init(process: Process, logPath: String) {
            self.process = process
            self.logPath = logPath
        }
        public var pid: Int32 { process.processIdentifier }
        public func signal(_ number: Int32) { kill(pid, number) }
        /// Waits for the exit; returns the status (128 + N when killed by signal N), or nil on timeout.
        public func wait(timeout: Duration = .seconds(30)) async -> Int32? {
            guard await DaemonHarness.waitUntil(timeout, { !process.isRunning }) else { return nil }
            return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }
        /// `wait`, polling on this thread (see `waitUntilBlocking`: for waits that are timed).
        public func waitBlocking(timeout: Duration = .seconds(30)) -> Int32? {
            guard DaemonHarness.waitUntilBlocking(timeout, { !process.isRunning }) else { return nil }
            return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }
        deinit {
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
        }
    }
}
