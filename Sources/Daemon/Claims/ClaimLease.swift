import Foundation
import DropcutPipeline
import DropcutSupport

/// The lease of a claim: `<inbox>/.dropcut/claimed/<name>/.lease`, a small JSON file the
/// holder rewrites (write a temporary file, rename it over) every third of `lease_timeout`
/// and at every step of the job. It says who holds the claim (`owner`), counts the
/// renewals (`beat`: the file changes at every renewal, even when nothing else does), and
/// carries the job's record, so a host that takes the claim over resumes the job where
/// its holder left it — the holder's own records are in its `state_dir`, which others
/// cannot read.
///
/// Others judge a lease only by whether it changes, timed by their own monotonic clock
/// (`ClaimObserver`): no clock of another host is ever read or compared.
package struct ClaimLease: Codable, Sendable, Hashable {
    /// The lease's name in its claim folder (hidden: never taken for a clip or a sidecar).
    package static let fileName = ".lease"
    /// The format; a lease of another version is not one this daemon can judge.
    package var version: Int
    /// Who holds the claim.
    package var owner: HostIdentity
    /// The holder's job id (the claim folder's name, before any `.committing-N`).
    package var job: String
    /// Renewals so far.
    package var beat: UInt64
    /// The job, as its holder last recorded it.
    package var record: JobRecord

    /// The lease of `record`'s claim, held by `owner`, at renewal `beat`.
    package init(owner: HostIdentity, record: JobRecord, beat: UInt64 = 0) {
        version = 1
        self.owner = owner
        job = record.id
        self.beat = beat
        self.record = record
    }

    /// The largest lease read: a job record with a long history is a few KB.
    static let maximumBytes = 1 << 20

    /// The lease's path in a claim folder.
    package static func path(in claimDirectory: String) -> String {
        (claimDirectory as NSString).appendingPathComponent(fileName)
    }

    /// The size a lease file is padded to a multiple of (with white space after the JSON).
    static let paddedSize = 4096

    /// The file's bytes: the JSON, padded with white space to a multiple of 4 KiB, so the
    /// file keeps its size from one renewal to the next. A share that caches file sizes
    /// (sshfs, NFS: for a second or more) reads a lease replaced since by the size it had
    /// cached: a lease whose length changed by a digit came out cut short, not JSON.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var data: Data
        do { data = try encoder.encode(self) } catch { preconditionFailure("ClaimLease always encodes: \(error)") }
        data.append(0x0A)
        let padded = (data.count + Self.paddedSize - 1) / Self.paddedSize * Self.paddedSize
        data.append(contentsOf: repeatElement(0x20, count: padded - data.count))
        return data
    }

    /// Writes the lease into `claimDirectory` atomically (temporary name, rename):
    /// `durable` fsyncs it (steps of the job); renewals only need to be seen to change.
    /// Fails with ENOENT when the folder is gone — taken over by another host.
    package func write(in claimDirectory: String, durable: Bool) throws(SystemError) {
        try DurableFiles.write(encoded(), to: Self.path(in: claimDirectory), durable: durable)
    }

    /// What a claim folder's lease file holds, as an observer reads it.
    package enum Reading: Sendable, Hashable {
        /// No lease file: a claim a moment old (its lease not written yet), or one made
        /// by an older dropcut.
        case missing
        /// A lease that can be judged.
        case lease(ClaimLease)
        /// A file that is not a lease this version reads (the reason).
        case unreadable(String)
    }

    /// Reads the lease of the claim folder `directory` (its name is `name`): the reading
    /// and a fingerprint of the file's bytes, which changes whenever the file does.
    package static func read(claimDirectory directory: String, name: ClaimName) -> (reading: Reading, fingerprint: UInt64) {
        let file = path(in: directory)
        var info = stat()
        if lstat(file, &info) != 0 && errno == ENOENT { return (.missing, 0) }
        let text: String
        do {
            text = try TextFile.read(file, followSymlinks: false, limit: maximumBytes)
        } catch {
            // Fingerprinted by the reason: a file that stays broken stays "unchanged".
            return (.unreadable("the lease \(error)"), fingerprint(of: Data("\(error)".utf8)))
        }
        let data = Data(text.utf8)
        return (decode(data, name: name), fingerprint(of: data))
    }

    /// The record the lease of the claim folder `directory` (renamed from `name`) holds,
    /// and who wrote it — or why there is none: what a taker resumes from on a share.
    package static func holderRecord(claimDirectory directory: String, name: ClaimName)
        -> (record: Result<JobRecord, MissingRecord>, owner: String) {
        switch read(claimDirectory: directory, name: name).reading {
        case let .lease(lease): (.success(lease.record), lease.owner.description)
        case .missing: (.failure(MissingRecord("it has no lease")), "its holder")
        case let .unreadable(why): (.failure(MissingRecord(why)), "its holder")
        }
    }

    /// Decodes and range-checks a lease read from `name`'s folder.
    static func decode(_ data: Data, name: ClaimName) -> Reading {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let lease: ClaimLease
        do {
            lease = try decoder.decode(ClaimLease.self, from: data)
        } catch let error as DecodingError {
            return .unreadable(JobStore.describe(error).replacingOccurrences(of: "job record", with: "lease"))
        } catch {
            return .unreadable("not a lease: \(error)")
        }
        if let problem = lease.problem(name: name) { return .unreadable(problem) }
        return .lease(lease)
    }

    /// What is out of range in a lease read from another host's claim, or nil.
    func problem(name: ClaimName) -> String? {
        guard version == 1 else { return "a lease of format version \(version), not 1" }
        guard job == name.job, record.id == job else { return "the lease names job \(job), not the folder's \(name.job)" }
        if let problem = owner.problem { return problem }
        // Names, paths, states and counters: as for a record read from the state folder.
        return record.problem(in: "lease")
    }

    /// FNV-1a over the bytes and their count: a change of the file changes it.
    static func fingerprint(of data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return (hash ^ UInt64(data.count) << 1) | 1   // never 0, a missing lease's
    }
}
