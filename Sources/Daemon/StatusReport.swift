import Foundation

/// What `dropcut status` shows, read from the state folder alone (so it works while the
/// daemon runs, and after it stopped): whether the daemon runs, what it renders and with
/// what progress, the queue, jobs held for a retry, and recent failures with their reasons.
public struct StatusReport: Sendable {
    public let daemon: DaemonStatus?
    public let jobs: [JobRecord]
    public let recent: Int

    public init(stateDirectory: String, recent: Int = 10) {
        daemon = DaemonStatus.read(stateDirectory: stateDirectory)
        jobs = JobStore(stateDirectory: stateDirectory).all()
        self.recent = recent
    }

    var isRunning: Bool { daemon?.isAlive ?? false }
    var failures: [JobRecord] { Array(jobs.filter { $0.state == .failed }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent)) }
    var done: [JobRecord] { Array(jobs.filter { $0.state == .done }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent)) }
    var unfinished: [JobRecord] { jobs.filter { !$0.isFinished } }

    /// For people.
    public func text() -> String {
        var lines: [String] = []
        if let daemon, isRunning {
            lines.append("dropcut is running (pid \(daemon.pid), since \(Self.time(daemon.started))): \(daemon.summary)")
        } else if let daemon {
            lines.append("dropcut is not running (last seen pid \(daemon.pid) at \(Self.time(daemon.updated)))")
        } else {
            lines.append("dropcut has not run with this state folder yet")
        }
        if let daemon, isRunning {
            for job in daemon.running {
                lines.append("  rendering  \(job.folder)/\(job.input)  \(Int(job.progress * 100))%  (job \(job.job))")
            }
            for item in daemon.queued {
                let retry = item.retryAt.map { "  retry at \(Self.time($0))" } ?? ""
                lines.append("  queued     \(item.folder)/\(item.input)\(retry)")
            }
            for (folder, reason) in daemon.unavailable.sorted(by: { $0.key < $1.key }) {
                lines.append("  UNAVAILABLE \(folder): \(reason)")
            }
        } else {
            for job in unfinished {
                lines.append("  unfinished \(job.folder)/\(job.input)  \(job.state.rawValue)  (job \(job.id); resumed at the next start)")
            }
        }
        lines.append("recent failures: \(failures.isEmpty ? "none" : "")")
        for job in failures {
            lines.append("  \(Self.time(job.updatedAt))  \(job.folder)/\(job.input): \(job.error ?? "?")")
        }
        lines.append("recently done: \(done.isEmpty ? "none" : "")")
        for job in done {
            let output = job.output.map { ($0 as NSString).lastPathComponent } ?? "?"
            let speed = job.speed.map { String(format: ", %.2fx realtime", $0) } ?? ""
            lines.append("  \(Self.time(job.updatedAt))  \(job.folder)/\(job.input) -> \(output)\(speed)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// For scripts: `{"running": bool, "daemon": {...}, "unfinished": [...], "failures": [...], "done": [...]}`.
    public func json() -> String {
        struct Output: Encodable {
            var running: Bool
            var daemon: DaemonStatus?
            var unfinished: [JobRecord]
            var failures: [JobRecord]
            var done: [JobRecord]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let output = Output(running: isRunning, daemon: daemon, unfinished: unfinished, failures: failures, done: done)
        let data = (try? encoder.encode(output)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func time(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
