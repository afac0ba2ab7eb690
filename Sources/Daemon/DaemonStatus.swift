import Foundation
import DropcutPipeline
import DropcutSupport

/// What the running daemon is doing, written to `<state_dir>/status.json` (atomically, at
/// most about once a second while rendering) for `dropcut status`.
package struct DaemonStatus: Codable, Sendable, Hashable {
    package struct Running: Codable, Sendable, Hashable {
        package var job: String
        package var folder: String
        package var input: String
        /// 0...1.
        package var progress: Double
        package var started: Date
        /// Output seconds rendered per second so far, once the worker writes (nil before).
        package var speed: Double?
    }

    package struct Queued: Codable, Sendable, Hashable {
        package var folder: String
        package var input: String
        /// Set for a job waiting to retry after a transient error.
        package var retryAt: Date?
        /// Since when it waits: a settled clip's modification time, a retry's last change.
        package var since: Date?
    }

    /// A claim in one of the inboxes — this daemon's or another host's — as this daemon
    /// last read it.
    package struct Claim: Codable, Sendable, Hashable {
        /// The folder (of the config) whose inbox holds it.
        package var folder: String
        /// The claim folder's name in `<inbox>/.dropcut/claimed/`.
        package var claim: String
        /// The holder's job.
        package var job: String
        /// The clip, its job's state and the holder, as its lease says (nil: unreadable).
        package var input: String?
        package var state: String?
        package var owner: HostIdentity?
        /// Whether this daemon holds it.
        package var mine: Bool
        /// When this daemon last saw its lease change, or first read it — by this host's
        /// clock, so only ever compared with this host's time.
        package var unchangedSince: Date
        /// Whether a change was seen (else: unchanged since the first reading).
        package var changeSeen: Bool
        /// Why its lease cannot be read; nil when it can.
        package var problem: String?

        /// The claim of `sighting` in `folder`; `mine` when this daemon holds it.
        package init(folder: String, sighting: ClaimObserver.Sighting, mine: Bool) {
            self.folder = folder
            claim = sighting.name.description
            job = sighting.name.job
            self.mine = mine
            unchangedSince = sighting.sinceDate
            changeSeen = sighting.changeSeen
            switch sighting.reading {
            case let .lease(lease):
                input = lease.record.input
                state = lease.record.state.rawValue
                owner = lease.owner
            case .missing:
                problem = "no lease yet (a claim being made, or one made by an older dropcut)"
            case let .unreadable(reason):
                problem = reason
            }
        }
    }

    package var pid: Int32
    package var started: Date
    package var updated: Date
    package var config: String
    package var running: [Running]
    package var queued: [Queued]
    /// Inboxes that cannot be read now, with the reason.
    package var unavailable: [String: String]
    /// Every host's claims in the inboxes (nil from a daemon before leases existed).
    package var claims: [Claim]?
    /// The daemon's lease_timeout in seconds: a claim unchanged this long is expired.
    package var leaseTimeout: Double?
    /// Who this daemon is, as its leases say.
    package var host: HostIdentity?
    /// The running daemon's version (`DropcutVersion`; nil from a daemon before it was kept).
    package var version: String?
    /// With `coordinator:`, the whole farm as the daemon last read it from the database
    /// (every few seconds): what the status page and `dropcut status` show.
    package var farm: Farm?

    /// Every host's jobs as the coordinator has them, read at `read`.
    package struct Farm: Codable, Sendable, Hashable {
        /// The server and database (never the password).
        package var coordinator: String
        package var jobs: [FarmJob]
        /// Why the last read failed; the jobs are then those of the read before.
        package var error: String?
        package var read: Date
    }

    /// The status line for systemd (`STATUS=`): "2 queued, rendering clip.mov 43%".
    package var summary: String {
        var parts = ["\(queued.count) queued"]
        for job in running { parts.append("rendering \(job.input) \(Int(job.progress * 100))%") }
        if running.isEmpty { parts.append("idle") }
        if !unavailable.isEmpty { parts.append("\(unavailable.count) inbox(es) unavailable") }
        return parts.joined(separator: ", ")
    }

    static func path(stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("status.json")
    }

    func write(stateDirectory: String) throws(SystemError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(self) } catch { preconditionFailure("DaemonStatus always encodes: \(error)") }
        try DurableFiles.write(data, to: Self.path(stateDirectory: stateDirectory), durable: false)
    }

    /// The last status the daemon wrote, if any.
    package static func read(stateDirectory: String) -> DaemonStatus? {
        guard let data = FileManager.default.contents(atPath: path(stateDirectory: stateDirectory)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(DaemonStatus.self, from: data)
    }

    /// Whether the process that wrote it still runs.
    package var isAlive: Bool { kill(pid, 0) == 0 || errno == EPERM }
}
