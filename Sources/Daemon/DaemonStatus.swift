import Foundation

/// What the running daemon is doing, written to `<state_dir>/status.json` (atomically, at
/// most about once a second while rendering) for `dropcut status`.
public struct DaemonStatus: Codable, Sendable, Hashable {
    public struct Running: Codable, Sendable, Hashable {
        public var job: String
        public var folder: String
        public var input: String
        /// 0...1.
        public var progress: Double
        public var started: Date
    }

    public struct Queued: Codable, Sendable, Hashable {
        public var folder: String
        public var input: String
        /// Set for a job waiting to retry after a transient error.
        public var retryAt: Date?
    }

    public var pid: Int32
    public var started: Date
    public var updated: Date
    public var config: String
    public var running: [Running]
    public var queued: [Queued]
    /// Inboxes that cannot be read now, with the reason.
    public var unavailable: [String: String]

    /// The status line for systemd (`STATUS=`): "2 queued, rendering clip.mov 43%".
    public var summary: String {
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
    public static func read(stateDirectory: String) -> DaemonStatus? {
        guard let data = FileManager.default.contents(atPath: path(stateDirectory: stateDirectory)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(DaemonStatus.self, from: data)
    }

    /// Whether the process that wrote it still runs.
    public var isAlive: Bool { kill(pid, 0) == 0 || errno == EPERM }
}
