import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `posix_spawn` pieces `PeakMemory` and `DetachedProcess` share.
enum Spawn {
    /// Runs `body` with spawn attributes that give the child default signal dispositions
    /// and an empty signal mask: test threads block most signals and may ignore SIGPIPE.
    static func withResetSignals<R>(_ body: (inout posix_spawnattr_t) throws -> R) rethrows -> R {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return try body(&attributes)
    }

    /// `argv` as the NULL-terminated C array `posix_spawn` takes, for the time of `body`.
    static func withCArguments<R>(_ argv: [String], _ body: ([UnsafeMutablePointer<CChar>?]) throws -> R) rethrows -> R {
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        return try body(arguments)
    }

    /// A wait status as an exit status: the code, or 128 + N when killed by signal N.
    static func exitStatus(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
