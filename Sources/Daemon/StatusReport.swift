import Foundation
import DropcutPipeline

/// What `dropcut status` shows, read from the state folder (so it works while the
/// daemon runs, and after it stopped): whether the daemon runs, what it renders and with
/// what progress, the queue, jobs held for a retry, and recent failures with their reasons;
/// and every host's claims in the inboxes, with their owners and the age of their leases
/// as this host saw them (the running daemon's observations; when it does not run, the
/// leases read now, each "just seen").
package struct StatusReport: Sendable {
    package let daemon: DaemonStatus?
    package let jobs: [JobRecord]
    package let recent: Int
    /// Every host's claims, by folder; with `inboxes`, read now when the daemon is not running.
    package let claims: [DaemonStatus.Claim]
    /// The inboxes by folder name (for the text).
    let inboxes: [String: String]
    /// lease_timeout in seconds.
    let leaseTimeout: Double
    /// With `coordinator:`, the whole farm as the database has it (every host's jobs): as
    /// the running daemon last read it, else read now.
    package let farm: DaemonStatus.Farm?

    package init(stateDirectory: String, recent: Int = 10) {
        self.init(stateDirectory: stateDirectory, folders: [], leaseTimeout: DaemonConfig(path: "", stateDirectory: "", folders: []).leaseTimeout,
                  recent: recent)
    }

    /// The status of the daemon of `config`, with the claims in its folders' inboxes.
    /// `readFarm` false: the farm only as the running daemon last read it (never a
    /// statement of this caller's: the HTTP listener must not wait for a database).
    package init(config: DaemonConfig, recent: Int = 10, readFarm: Bool = true) {
        self.init(stateDirectory: config.stateDirectory, folders: config.folders, leaseTimeout: config.leaseTimeout, recent: recent,
                  coordinator: config.coordinator, readFarm: readFarm)
    }

    init(stateDirectory: String, folders: [FolderConfig], leaseTimeout: Duration, recent: Int, coordinator: CoordinatorConfig? = nil,
         readFarm: Bool = false) {
        let daemon = DaemonStatus.read(stateDirectory: stateDirectory)
        if let coordinator {
            farm = (daemon?.isAlive == true ? daemon?.farm : nil) ?? (readFarm ? Self.readFarm(coordinator, recent: recent) : nil)
        } else {
            farm = nil
        }
        self.daemon = daemon
        jobs = JobStore(stateDirectory: stateDirectory).all()
        self.recent = recent
        inboxes = Dictionary(folders.map { ($0.name, $0.inbox) }, uniquingKeysWith: { first, _ in first })
        let running = daemon?.isAlive ?? false
        if coordinator != nil {
            // The database has the claims (`farm`); claim folders hold no lease files.
            claims = []
            self.leaseTimeout = leaseTimeout.seconds
        } else if running, let daemon, let observed = daemon.claims {
            claims = observed
            self.leaseTimeout = daemon.leaseTimeout ?? leaseTimeout.seconds
        } else {
            // Read now: a first reading, so every lease is "just seen".
            let mine = Set(jobs.filter { !$0.isFinished }.map(\.id))
            claims = folders.flatMap { folder in
                var observer = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: leaseTimeout)
                return observer.observe().map { DaemonStatus.Claim(folder: folder.name, sighting: $0, mine: mine.contains($0.name.job)) }
            }
            self.leaseTimeout = leaseTimeout.seconds
        }
    }

    /// Every host's jobs from the coordinator (a statement of at most 5 s).
    static func readFarm(_ coordinator: CoordinatorConfig, recent: Int) -> DaemonStatus.Farm {
        let database = PostgresCoordinator(conninfo: coordinator.conninfo, target: coordinator.target, host: "dropcut status",
                                           timeout: .seconds(5))
        do {
            return DaemonStatus.Farm(coordinator: coordinator.target, jobs: try database.farm(recent: recent), read: Date())
        } catch {
            return DaemonStatus.Farm(coordinator: coordinator.target, jobs: [], error: "\(error)", read: Date())
        }
    }

    /// The farm's lines of the text.
    func farmLines(_ farm: DaemonStatus.Farm) -> [String] {
        if let error = farm.error, farm.jobs.isEmpty { return ["farm (coordinator \(farm.coordinator)): cannot be read: \(error)"] }
        let claimed = farm.jobs.filter { $0.state == "claimed" }, queued = farm.jobs.filter { $0.state == "queued" }
        var lines = ["farm (coordinator \(farm.coordinator)): \(claimed.count) claimed, \(queued.count) queued; leases by the database's clock"]
        for job in claimed {
            let lease = job.leaseLeft.map { $0 >= 0 ? "lease \(Self.seconds($0)) left" : "lease EXPIRED \(Self.seconds(-$0)) ago" } ?? "no lease"
            lines.append("  \(job.step ?? "claimed")  \(job.folder)/\(job.clip)  \(job.host ?? "?"), epoch \(job.epoch), \(lease)  (job \(job.job))")
        }
        for job in queued { lines.append("  queued  \(job.folder)/\(job.clip)") }
        let ended = farm.jobs.filter { !["claimed", "queued"].contains($0.state) }
        if !ended.isEmpty { lines.append("recently ended in the farm:") }
        for job in ended { lines.append("  \(job.state)  \(job.folder)/\(job.clip)  \(job.host ?? "?")") }
        return lines
    }

    /// How a claim's lease age reads: nil seconds for "just seen" (read once, by `dropcut
    /// status` itself), else the seconds since the daemon last saw it change (or first read
    /// it, when it has not changed since), by this host's clock.
    func age(of claim: DaemonStatus.Claim, now: Date = Date()) -> (seconds: Double?, seen: String) {
        guard isRunning && daemon?.claims != nil else { return (nil, "just seen") }
        let seconds = max(0, now.timeIntervalSince(claim.unchangedSince))
        return (seconds, claim.changeSeen ? "since its last change" : "since first seen")
    }

    var isRunning: Bool { daemon?.isAlive ?? false }
    var failures: [JobRecord] { Array(jobs.filter { $0.state == .failed }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent)) }
    var done: [JobRecord] { Array(jobs.filter { $0.state == .done }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent)) }
    var unfinished: [JobRecord] { jobs.filter { !$0.isFinished } }

    /// For people.
    package func text() -> String {
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
                let speed = job.speed.map { String(format: "  %.2fx", $0) } ?? ""
                lines.append("  rendering  \(job.folder)/\(job.input)  \(Int(job.progress * 100))%\(speed)  (job \(job.job))")
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
        if let farm { lines += farmLines(farm) }
        if !claims.isEmpty {
            lines.append("claims, every host's (lease_timeout \(Self.seconds(leaseTimeout)); lease ages by this host's clock):")
        }
        var folder: String?
        for claim in claims {
            if claim.folder != folder {
                folder = claim.folder
                lines.append("  in \(inboxes[claim.folder] ?? "the inbox") (folder \(claim.folder)):")
            }
            let (seconds, seen) = age(of: claim)
            let owner = claim.owner.map { "\($0.host) pid \($0.pid)" } ?? "unknown owner"
            let mine = claim.mine ? ", this daemon" : ""
            var lease: String
            if let seconds {
                lease = "lease unchanged for \(Self.seconds(seconds)) \(seen)"
                if seconds >= leaseTimeout { lease += " — EXPIRED" }
            } else {
                lease = "lease just seen"
            }
            let problem = claim.problem.map { "  (\($0))" } ?? ""
            lines.append("    \(claim.input ?? claim.claim)  \(claim.state ?? "?")  \(owner)\(mine), job \(claim.job)  \(lease)\(problem)")
        }
        let abandoned = jobs.filter { $0.state == .abandoned }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent)
        if !abandoned.isEmpty { lines.append("recently taken over by other hosts:") }
        for job in abandoned {
            lines.append("  \(Self.time(job.updatedAt))  \(job.folder)/\(job.input): \(job.error ?? "?")")
        }
        lines.append("recent failures: \(failures.isEmpty ? "none" : "")")
        for job in failures {
            lines.append("  \(Self.time(job.updatedAt))  \(job.folder)/\(job.input): \(job.error ?? "?")")
        }
        lines.append("recently done: \(done.isEmpty ? "none" : "")")
        for job in done {
            let names = job.outputNames   // a set's every file, the manifest last
            let output = names.isEmpty ? "?" : names.joined(separator: ", ")
            let speed = job.speed.map { String(format: ", %.2fx realtime", $0) } ?? ""
            lines.append("  \(Self.time(job.updatedAt))  \(job.folder)/\(job.input) -> \(output)\(speed)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// For scripts: `{"running": bool, "daemon": {...}, "unfinished": [...], "failures": [...],
    /// "done": [...], "claims": [...], "farm": {...}}`; each claim with its `owner`, and
    /// `lease_age_seconds` (null: just seen) with `lease_seen` and `expired`; with a
    /// coordinator, `farm` has its `coordinator`, an `error` if it could not be read, and
    /// every host's `jobs` (`state`, `host`, `epoch`, `step`, `lease_left_seconds`).
    package func json() -> String {
        struct Claim: Encodable {
            var folder: String
            var inbox: String?
            var claim: String
            var job: String
            var input: String?
            var state: String?
            var owner: HostIdentity?
            var mine: Bool
            var leaseAgeSeconds: Double?
            var leaseSeen: String
            var expired: Bool
            var problem: String?
            enum CodingKeys: String, CodingKey {
                case folder, inbox, claim, job, input, state, owner, mine, expired, problem
                case leaseAgeSeconds = "lease_age_seconds", leaseSeen = "lease_seen"
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(folder, forKey: .folder)
                try container.encodeIfPresent(inbox, forKey: .inbox)
                try container.encode(claim, forKey: .claim)
                try container.encode(job, forKey: .job)
                try container.encodeIfPresent(input, forKey: .input)
                try container.encodeIfPresent(state, forKey: .state)
                try container.encodeIfPresent(owner, forKey: .owner)
                try container.encode(mine, forKey: .mine)
                try container.encode(leaseAgeSeconds, forKey: .leaseAgeSeconds)   // null: just seen
                try container.encode(leaseSeen, forKey: .leaseSeen)
                try container.encode(expired, forKey: .expired)
                try container.encodeIfPresent(problem, forKey: .problem)
            }
        }
        struct Output: Encodable {
            /// This binary's version (the running daemon's is `daemon.version`).
            var version: String
            var running: Bool
            var daemon: DaemonStatus?
            var unfinished: [JobRecord]
            var failures: [JobRecord]
            var done: [JobRecord]
            var abandoned: [JobRecord]
            var claims: [Claim]
            var farm: FarmOutput?
        }
        struct FarmJob: Encodable {
            var job, folder, clip, state: String
            var host: String?
            var epoch: Int64
            var step: String?
            var leaseLeftSeconds: Double?
            enum CodingKeys: String, CodingKey {
                case job, folder, clip, state, host, epoch, step
                case leaseLeftSeconds = "lease_left_seconds"
            }
        }
        struct FarmOutput: Encodable {
            var coordinator: String
            var error: String?
            var jobs: [FarmJob]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let listed = claims.map { claim in
            let (seconds, seen) = age(of: claim)
            return Claim(folder: claim.folder, inbox: inboxes[claim.folder], claim: claim.claim, job: claim.job, input: claim.input,
                         state: claim.state, owner: claim.owner, mine: claim.mine,
                         leaseAgeSeconds: seconds.map { ($0 * 10).rounded() / 10 }, leaseSeen: seen,
                         expired: (seconds ?? 0) >= leaseTimeout, problem: claim.problem)
        }
        let abandoned = Array(jobs.filter { $0.state == .abandoned }.sorted { $0.updatedAt > $1.updatedAt }.prefix(recent))
        let output = Output(version: DropcutVersion.current, running: isRunning, daemon: daemon, unfinished: unfinished, failures: failures, done: done,
                            abandoned: abandoned, claims: listed,
                            farm: farm.map { farm in
                                FarmOutput(coordinator: farm.coordinator, error: farm.error, jobs: farm.jobs.map {
                                    FarmJob(job: $0.job, folder: $0.folder, clip: $0.clip, state: $0.state, host: $0.host, epoch: $0.epoch,
                                            step: $0.step, leaseLeftSeconds: $0.leaseLeft.map { ($0 * 10).rounded() / 10 })
                                })
                            })
        let data = (try? encoder.encode(output)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f s", value) : String(format: "%.0f s", value)
    }

    static func time(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
