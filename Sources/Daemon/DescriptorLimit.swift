import Foundation
import DropcutSupport

/// The daemon's descriptor limit (RLIMIT_NOFILE). Its soft limit is raised to the hard one
/// at start: systemd gives services a soft 1024 (kept low for programs that still use
/// select(2), which dropcut and its libraries do not), and the network must not be able to
/// reach it. The HTTP listener's caps are set from what it is then (`ConnectionLimits`).
package enum DescriptorLimit {
    /// What the limits were, and what the soft one is now.
    package struct Raise: Sendable, Hashable, CustomStringConvertible {
        package var before: UInt64
        package var soft: UInt64
        package var hard: UInt64
        /// Why it could not be raised, when it could not.
        package var error: SystemError?

        package var description: String {
            if let error { return "descriptors: the soft limit stays \(soft) (hard \(hard)): \(error)" }
            if before == soft { return "descriptors: \(soft) (the soft limit is the hard one)" }
            return "descriptors: the soft limit raised from \(before) to \(soft), the hard limit"
        }
    }

    /// The soft limit now.
    package static var soft: UInt64 {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return UInt64(limit.rlim_cur)
    }

    /// How many descriptors the process has open now (/proc/self/fd, less the one listing it).
    package static var inUse: Int {
        guard let dir = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            // By `InboxScanner.name(of:)`: reading `d_name` through `pointee` copies past the record.
            if InboxScanner.name(of: entry)?.bytes.first != 0x2E { count += 1 }
        }
        return max(0, count - 1)
    }

    /// Sets the soft limit to the hard one.
    package static func raiseSoftToHard() -> Raise {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return Raise(before: 0, soft: 0, hard: 0, error: .last("getrlimit", "RLIMIT_NOFILE"))
        }
        let before = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
        guard before < hard else { return Raise(before: before, soft: before, hard: hard) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return Raise(before: before, soft: before, hard: hard, error: .last("setrlimit", "RLIMIT_NOFILE"))
        }
        return Raise(before: before, soft: hard, hard: hard)
    }
}
