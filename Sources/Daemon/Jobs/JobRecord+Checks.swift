import Foundation
import DropcutPipeline

/// What a job record read back from a file may say. A record comes back from
/// `<state_dir>/jobs/` and, inside a claim's lease, from `<inbox>/.dropcut/claimed/` —
/// where, on a share that maps every user to one uid, anyone who can drop a clip can write.
/// Its names and paths become paths the daemon links, moves, removes and writes to, so
/// each is checked where the record is parsed (`JobStore.load`, `ClaimLease.decode`): a
/// record that fails is unreadable — its clip goes to failed/ with the reason — and is
/// never acted on.
extension JobRecord {
    /// Bounds on the counts a record read back may hold.
    static let maximumAttempts = 1000
    static let maximumListed = 1000
    static let maximumSidecars = 16
    static let maximumElapsedMilliseconds = 31 * 24 * 3600 * 1000
    static let maximumFolderNameBytes = 4096
    /// A coordinator epoch: one per claim or takeover of a job; far beyond any real count.
    static let maximumEpoch: Int64 = 1 << 53

    /// What is wrong with a record read from `source` ("lease", "job record"), or nil.
    func problem(in source: String) -> String? {
        guard ClaimName(id)?.fences == 0 else { return "the \(source) names a job id that is not one" }
        // A folder name is only looked up among the configured ones (the config sets no
        // length for them; this bound is only against a huge forged value).
        guard !folder.isEmpty, !folder.utf8.contains(0), folder.utf8.count <= Self.maximumFolderNameBytes else {
            return "the \(source)'s folder name is not one"
        }
        let names = [input] + sidecars
        guard names.allSatisfy(JobRunner.isPlainName), sidecars.count <= Self.maximumSidecars else {
            return "the \(source) lists a file that is not a plain name"
        }
        for (claimed, original) in dropped ?? [:] {
            // The escaped form decoded first: `..\x2Fx.mp4` is `../x.mp4`.
            guard JobRunner.isPlainName(claimed), let raw = RawFileName(printable: original), raw.isPlainName else {
                return "the \(source) lists a dropped name that is not a plain name"
            }
        }
        guard (0...Self.maximumAttempts).contains(attempts) else {
            return "the \(source)'s attempts \(attempts) are out of range (0 to \(Self.maximumAttempts))"
        }
        if let count = interruptedPreparations, !(0...Self.maximumInterruptedPreparations).contains(count) {
            return "the \(source)'s interrupted preparations \(count) are out of range (0 to \(Self.maximumInterruptedPreparations))"
        }
        guard (history ?? []).count <= Self.maximumListed, (previousJobs ?? []).count <= Self.maximumListed,
              recipes.count <= Self.maximumListed else {
            return "the \(source) lists more than \(Self.maximumListed) attempts, recipes or earlier holders"
        }
        guard (previousJobs ?? []).allSatisfy({ ClaimName($0)?.fences == 0 }) else {
            return "the \(source) names an earlier holder that is not a job id"
        }
        if let claimName, ClaimName(claimName)?.job != id {
            return "the \(source)'s claim folder name is not one of its job"
        }
        if let farmJob, ClaimName(farmJob)?.fences != 0 { return "the \(source)'s farm job is not a job id" }
        if let epoch, !(1...Self.maximumEpoch).contains(epoch) {
            return "the \(source)'s epoch \(epoch) is out of range (1 to \(Self.maximumEpoch))"
        }
        if let ms = elapsedMilliseconds, !(0...Self.maximumElapsedMilliseconds).contains(ms) {
            return "the \(source)'s elapsed_ms \(ms) is out of range"
        }
        if let speed, !(speed.isFinite && (0...1_000_000).contains(speed)) {
            return "the \(source)'s speed is out of range"
        }
        if let output, !Self.isFilePath(output) { return "the \(source)'s output is not a path to a file" }
        if let deliverables {
            guard (1...Self.maximumDeliverables).contains(deliverables.count) else {
                return "the \(source) lists \(deliverables.count) deliverables (1 to \(Self.maximumDeliverables))"
            }
            for file in deliverables {
                // A ladder is described as its master playlist in its folder (`clip/clip.m3u8`).
                guard JobRunner.isPlainName(file.name), JobRunner.isPlainName(file.publishedName),
                      file.file.map({ JobRunner.isPlainName($0.name) || (file.isLadder && $0.name == file.describedName) }) ?? true else {
                    return "the \(source) lists a deliverable that is not a plain name"
                }
                if let output = file.output, !Self.isFilePath(output) { return "the \(source)'s deliverable output is not a path to a file" }
                if let temporary = file.temporary, !Self.isFilePath(temporary) || !(temporary as NSString).lastPathComponent.hasPrefix(".") {
                    return "the \(source)'s deliverable temporary file is not a path to a hidden file"
                }
            }
        }
        if let arrival {
            // Counted up and compared as they are read back: a look count at Int.max would trap.
            guard arrival.size >= 0, (0...ClipArrival.maximumLooks + 1).contains(arrival.looks),
                  (0...ClipArrival.maximumQuietLooks).contains(arrival.quietLooks) else {
                return "the \(source)'s arrival (size \(arrival.size), looks \(arrival.looks), quiet looks \(arrival.quietLooks)) is out of range"
            }
            if let identity = arrival.identity,
               identity.size < 0 || identity.digest.utf8.count != 64 || !identity.digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                return "the \(source)'s clip identity is not one (a size and a SHA-256 in hex)"
            }
        }
        if let setSuffix, !(0..<DurableFiles.maximumNumbered).contains(setSuffix) {
            return "the \(source)'s set suffix \(setSuffix) is out of range"
        }
        return nil
    }

    /// The most files a set may list (the recipe's outputs and the manifest).
    static let maximumDeliverables = 64

    /// A plain name, or an absolute path without `.` or `..` in it ending in one (what an
    /// output or temporary output is: its name before the commit, its path after).
    static func isFilePath(_ path: String) -> Bool {
        guard !path.utf8.contains(0), path.utf8.count <= Int(PATH_MAX) else { return false }
        if !path.contains("/") { return JobRunner.isPlainName(path) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.hasPrefix("/"), let last = parts.last, JobRunner.isPlainName(String(last)) else { return false }
        return parts.dropFirst().allSatisfy { $0 != "." && $0 != ".." }
    }
}

extension RawFileName {
    /// Whether the bytes are a name in a folder, not a path: not empty, not `.` or `..`,
    /// no `/` or NUL, at most NAME_MAX bytes.
    var isPlainName: Bool {
        !bytes.isEmpty && bytes != [0x2E] && bytes != [0x2E, 0x2E] && !bytes.contains(0x2F) && !bytes.contains(0)
            && bytes.count <= Int(NAME_MAX)
    }
}
