import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A daemon's worker caught at work and held there with SIGSTOP, so that what a test does
/// next (kill the daemon, plant a file, watch a lease) surely happens mid-render: a worker
/// merely seen at work may finish before the next line runs on a loaded machine.
public struct WorkerAtWork {
    public let pid: Int32
    /// The claimed clip it has open: `<inbox>/.dropcut/claimed/<job>/<name>`.
    public let clip: String

    /// The job whose clip it renders (its claim folder's name).
    public var job: String { ((clip as NSString).deletingLastPathComponent as NSString).lastPathComponent }

    /// The claimed clip `pid` has open, or nil. Only a worker counts, and only a file in a
    /// claim folder: a child caught between posix_spawn's clone and its exec still holds its
    /// daemon's descriptors, such as the claim folder the daemon is fsyncing for another
    /// clip (a CI run caught one and took "claimed" for the job).
    public static func openClaim(of pid: Int32) -> String? {
        guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
              command.starts(with: Array("dropcut\0worker\0".utf8)) else { return nil }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.lazy.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .first { path in
                guard let range = path.range(of: "/.dropcut/claimed/") else { return false }
                // `<job>/<name>`: a file inside a claim folder, not the folder itself.
                return path[range.upperBound...].split(separator: "/").count == 2
            }
    }

    /// The state letter of `pid` in /proc (`T`: stopped), or nil when it is gone.
    public static func state(of pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first?.first
    }

    /// Waits for a child of `daemon` with a claimed clip whose path contains `name` open,
    /// stops it, and checks that it still has it open once stopped (else it had finished:
    /// it is let go and looked for again). Nil on timeout. Polls on this thread (blocking
    /// it): a worker at work is there for a moment only, and an awaited poll can resume
    /// seconds late when the parallel suite keeps every pool thread busy.
    public static func stop(childOf daemon: Int32, workingOn name: String = "/.dropcut/claimed/",
                     timeout: Duration = .seconds(60)) -> WorkerAtWork? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for child in ProcessInspection.children(of: daemon) {
                guard let seen = openClaim(of: child), seen.contains(name) else { continue }
                kill(child, SIGSTOP)
                // SIGSTOP takes effect asynchronously: looked at again once /proc says so.
                _ = DaemonHarness.waitUntilBlocking(.seconds(2)) { state(of: child) == "T" || state(of: child) == nil }
                if state(of: child) == "T", let clip = openClaim(of: child), clip.contains(name) {
                    return WorkerAtWork(pid: child, clip: clip)
                }
                kill(child, SIGCONT)
            }
            usleep(2000)
        }
        return nil
    }

    /// Lets it go on.
    public func resume() { kill(pid, SIGCONT) }
}
