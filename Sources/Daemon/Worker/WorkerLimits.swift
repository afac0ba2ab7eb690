import Foundation

/// What one render's worker process may use (config: `memory_limit`, `cpu_limit`,
/// `open_files`, `job_timeout`, `job_timeout_minimum`, `max_duration`). A worker that
/// goes past a limit is stopped; that attempt fails, the daemon and its other jobs go on.
package struct WorkerLimits: Codable, Sendable, Hashable {
    /// The worker's data segment (RLIMIT_DATA: heap, anonymous mappings, thread stacks) in
    /// bytes; nil: unlimited. Not RLIMIT_AS, which also counts the address space glibc
    /// reserves per thread arena and would fail renders that use little memory.
    package var memoryBytes: UInt64? = 4 << 30
    /// CPU seconds over all the worker's threads (RLIMIT_CPU); nil: unlimited.
    package var cpuSeconds: UInt64?
    /// Descriptors the worker may hold open (RLIMIT_NOFILE).
    package var openFiles: UInt64 = 1024
    /// A render may take this many times the output's duration of wall-clock time...
    package var timeoutFactor: Double = 20
    /// ...but never less than this (also the bound while the job is still being prepared:
    /// recipe read, media probed, sound measured), in seconds.
    package var timeoutMinimumSeconds: Double = 600
    /// The longest output a job may have, in seconds: longer ones fail before anything is
    /// rendered (a header claiming days of video cannot keep a worker busy for days).
    package var maxDurationSeconds: Double = 4 * 3600

    package init() {}

    /// How long a render of `duration` seconds may take (nil: still preparing).
    package func timeout(forDuration duration: Double?) -> Duration {
        let scaled = duration.map { $0.isFinite && $0 > 0 ? $0 * timeoutFactor : 0 } ?? 0
        let seconds = min(max(scaled, timeoutMinimumSeconds), 366 * 86400)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// `2G`, `512M`, `64K` or a number of bytes, as `memory_limit` is written.
    static func bytes(_ text: String) -> UInt64? {
        let units: [Character: UInt64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var number = text.trimmingCharacters(in: .whitespaces)
        var scale: UInt64 = 1
        if number.hasSuffix("B") || number.hasSuffix("b") { number.removeLast() }
        if let last = number.last, let unit = units[Character(last.uppercased())] {
            scale = unit
            number.removeLast()
        }
        guard !number.isEmpty, number.allSatisfy(\.isASCII), let value = UInt64(number) else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }

    /// A byte count as people write it (`4 GiB`, `512 MiB`).
    static func describe(bytes: UInt64) -> String {
        for (unit, size) in [("TiB", UInt64(1) << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size {
            let value = Double(bytes) / Double(size)
            return value == value.rounded() ? "\(Int(value)) \(unit)" : String(format: "%.1f %@", value, unit)
        }
        return "\(bytes) bytes"
    }
}
