import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Generated fixtures made once per test process and copied after that: ffmpeg given the
/// same arguments writes the same bytes (lavfi sources, x264 `ultrafast`, AAC), so the
/// hundreds of identical clips the suites ask for cost one encode each and then a copy.
/// The tests are CPU-bound on two cores; an encode they do not repeat is time off the run.
///
/// A copy is a new file with its own inode and the time of the copy (as a clip just made
/// would have), so a test may rename, truncate or mutate it freely.
enum FixtureCache {
    /// The cache's folder, made at first use and removed when the process exits.
    private static let directory: String = {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("dropcut-fixtures-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        let path = made.map { String(cString: $0) } ?? NSTemporaryDirectory()
        atexit { FixtureCache.removeAll() }
        return path
    }()

    /// Cached files by their arguments.
    private static let files = Mutex<[String: String]>([:])

    /// Makes `output` with ffmpeg's `arguments` (the output path last, added here): a copy
    /// of the file these arguments made before in this process, else a new encode, kept.
    static func ffmpeg(_ arguments: [String], output: String) throws {
        let key = arguments.joined(separator: "\u{0}") + "\u{0}" + (output as NSString).pathExtension
        if let cached = files.withLock({ $0[key] }) {
            try copy(cached, to: output)
            return
        }
        try Command.runChecked("ffmpeg", arguments + [output])
        // Kept under a name of its own; two tests making the same clip at once each keep
        // theirs, and the later one is used.
        let kept = (directory as NSString).appendingPathComponent("\(UUID().uuidString).\((output as NSString).pathExtension)")
        if (try? FileManager.default.copyItem(atPath: output, toPath: kept)) != nil {
            files.withLock { $0[key] = kept }
        }
    }

    /// A copy of `source` at `destination` (replacing what is there), dated now.
    private static func copy(_ source: String, to destination: String) throws {
        unlink(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        utimensat(AT_FDCWD, destination, nil, 0)
    }

    private static func removeAll() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
