import Foundation

/// The job records in `<state_dir>/jobs/`, one JSON file per job, each replaced
/// atomically (write temp, fsync, rename, fsync folder) so a crash leaves the old or the
/// new record, never half of one.
public struct JobStore: Sendable {
    public let directory: String

    public init(stateDirectory: String) {
        directory = (stateDirectory as NSString).appendingPathComponent("jobs")
    }

    /// Creates the folder.
    public func prepare() throws(SystemError) {
        try DurableFiles.makeDirectories(directory)
    }

    func path(of id: String) -> String {
        (directory as NSString).appendingPathComponent("\(id).json")
    }

    /// Writes `record` (its `updatedAt` set to now) durably.
    public func save(_ record: inout JobRecord) throws(SystemError) {
        record.updatedAt = Date()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(record) } catch { preconditionFailure("JobRecord always encodes: \(error)") }
        try DurableFiles.write(data, to: path(of: record.id))
    }

    public func remove(_ id: String) {
        unlink(path(of: id))
    }

    /// Every readable record, oldest claim first. Unreadable files (not JSON, another
    /// version) are skipped: `dropcut status` must work whatever else is in the folder.
    public func all() -> [JobRecord] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return names.filter { $0.hasSuffix(".json") }.compactMap { name -> JobRecord? in
            guard let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)) else { return nil }
            return try? decoder.decode(JobRecord.self, from: data)
        }.sorted { ($0.claimedAt, $0.id) < ($1.claimedAt, $1.id) }
    }

    /// Removes finished records beyond the newest `keep`, so the folder does not grow forever.
    public func prune(keep: Int = 200) {
        let finished = all().filter(\.isFinished).sorted { $0.updatedAt > $1.updatedAt }
        for record in finished.dropFirst(keep) { remove(record.id) }
    }
}
