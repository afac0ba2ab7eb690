import Foundation
import DropcutPipeline
import DropcutSupport

/// The job records in `<state_dir>/jobs/`, one JSON file per job, each replaced
/// atomically (write temp, fsync, rename, fsync folder) so a crash leaves the old or the
/// new record, never half of one.
package struct JobStore: Sendable {
    package let directory: String

    package init(stateDirectory: String) {
        directory = (stateDirectory as NSString).appendingPathComponent("jobs")
    }

    /// Creates the folder.
    package func prepare() throws(SystemError) {
        try DurableFiles.makeDirectories(directory)
    }

    func path(of id: String) -> String {
        (directory as NSString).appendingPathComponent("\(id).json")
    }

    /// Writes `record` (its `updatedAt` set to now) durably.
    package func save(_ record: inout JobRecord) throws(SystemError) {
        record.updatedAt = Date()
        try DurableFiles.write(Self.encoded(record), to: path(of: record.id))
    }

    /// A record as the state folder holds it (JSON, keys sorted, ISO 8601 dates).
    static func encoded(_ record: JobRecord) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do { return try encoder.encode(record) } catch { preconditionFailure("JobRecord always encodes: \(error)") }
    }

    /// A record as a coordinator stores it: the same JSON, as text.
    static func json(_ record: JobRecord) -> String {
        String(decoding: encoded(record), as: UTF8.self)
    }

    /// A record a coordinator stored (another host's): read and range-checked as a record
    /// from the state folder is; nil when it is not one.
    static func record(json text: String) -> JobRecord? {
        try? reading(json: text).get()
    }

    /// `record(json:)`, or why the text is not a record.
    static func reading(json text: String) -> Result<JobRecord, MissingRecord> {
        guard text.utf8.count <= maximumRecordBytes else { return .failure(.init("the coordinator's record of it is over \(maximumRecordBytes) bytes")) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record: JobRecord
        do {
            record = try decoder.decode(JobRecord.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            return .failure(.init(describe(error).replacingOccurrences(of: "job record", with: "coordinator's record")))
        } catch {
            return .failure(.init("the coordinator's record of it is not one: \(error)"))
        }
        if let problem = record.problem(in: "coordinator's record") { return .failure(.init(problem)) }
        return .success(record)
    }

    package func remove(_ id: String) {
        unlink(path(of: id))
    }

    /// A record file that cannot be read back as a job (cut short by a full disk, edited
    /// by hand, written by another version).
    package struct UnreadableRecord: Sendable, Hashable {
        package let id: String
        package let path: String
        package let reason: String
    }

    /// The largest record read: a job record is a few KB.
    static let maximumRecordBytes = 1 << 20

    /// Every readable record, oldest claim first. Unreadable files (not JSON, another
    /// version) are left out: `dropcut status` must work whatever else is in the folder.
    package func all() -> [JobRecord] { load().records }

    /// The readable record of job `id` (a job id: no path), nil when there is none.
    package func record(_ id: String) -> JobRecord? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let text = try? TextFile.read(path(of: id), followSymlinks: false, limit: Self.maximumRecordBytes),
              let record = try? decoder.decode(JobRecord.self, from: Data(text.utf8)),
              record.id == id, record.problem(in: "job record") == nil else { return nil }
        return record
    }

    /// Every record, oldest claim first, and the files that are not readable records
    /// (recovery sends their clips to the failed folder instead of leaving them hidden).
    package func load() -> (records: [JobRecord], unreadable: [UnreadableRecord]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return ([], []) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var records: [JobRecord] = [], unreadable: [UnreadableRecord] = []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            let id = String(name.dropLast(".json".count))
            do {
                let data = try TextFile.read(path, followSymlinks: false, limit: Self.maximumRecordBytes)
                let record = try decoder.decode(JobRecord.self, from: Data(data.utf8))
                guard record.id == id else {
                    unreadable.append(UnreadableRecord(id: id, path: path, reason: "it names another job (\(record.id))"))
                    continue
                }
                // Its names and paths are untrusted input like any file's (`JobRecord+Checks`).
                if let problem = record.problem(in: "job record") {
                    unreadable.append(UnreadableRecord(id: id, path: path, reason: problem))
                    continue
                }
                records.append(record)
            } catch let error as DecodingError {
                unreadable.append(UnreadableRecord(id: id, path: path, reason: Self.describe(error)))
            } catch {
                unreadable.append(UnreadableRecord(id: id, path: path, reason: "\(error)"))
            }
        }
        return (records.sorted { ($0.claimedAt, $0.id) < ($1.claimedAt, $1.id) }, unreadable.sorted { $0.id < $1.id })
    }

    /// Renames an unreadable record to `<id>.json.unreadable`: kept for a look, never read again.
    package func setAside(_ record: UnreadableRecord) {
        _ = rename(record.path, record.path + ".unreadable")
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .dataCorrupted(context): return "not a job record: \(context.debugDescription)"
        case let .keyNotFound(key, _): return "not a job record: '\(key.stringValue)' is missing"
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "not a job record: '\(context.codingPath.map(\.stringValue).joined(separator: "."))' \(context.debugDescription)"
        @unknown default: return "not a job record"
        }
    }

    /// Removes finished records beyond the newest `keep`, so the folder does not grow forever.
    package func prune(keep: Int = 200) {
        let finished = all().filter(\.isFinished).sorted { $0.updatedAt > $1.updatedAt }
        for record in finished.dropFirst(keep) { remove(record.id) }
    }
}
