import Foundation

/// A process's wall clock set off by libfaketime (Debian's `faketime` package, which
/// `scripts/bootstrap` installs): the environment that starts a program with its
/// `CLOCK_REALTIME` (and `gettimeofday`, `time`) shifted by `offset` (libfaketime's
/// syntax: `+5h`, `-90m`), its monotonic clocks left alone.
///
/// libfaketime 0.9.10 also shifts every `timerfd_settime(TFD_TIMER_ABSTIME)` by the offset,
/// whatever the timer's clock: the monotonic deadlines libdispatch sets (every
/// `Task.sleep`) come out negative (EINVAL) or hours late, and a Swift program's timers
/// never fire — a fault of the tool, not of a clock that is off. A small library preloaded
/// before it gives `timerfd_settime`/`timerfd_gettime` back to libc; it is compiled with the
/// toolchain's clang into the test's folder.
public enum FakeClock {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <sys/timerfd.h>
        typedef int (*settime_t)(int, int, const struct itimerspec *, struct itimerspec *);
        typedef int (*gettime_t)(int, struct itimerspec *);
        static void *libc(void) { return dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD); }
        int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
            static settime_t real;
            if (!real) real = (settime_t)dlsym(libc(), "timerfd_settime");
            return real(fd, flags, value, old);
        }
        int timerfd_gettime(int fd, struct itimerspec *value) {
            static gettime_t real;
            if (!real) real = (gettime_t)dlsym(libc(), "timerfd_gettime");
            return real(fd, value);
        }

        """

    /// The environment that runs a program with its wall clock `offset` off; the timer fix
    /// is built in `folder` (the test's own, removed with it).
    public static func environment(offset: String, buildingIn folder: TemporaryDirectory) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: library) else {
            throw Failure(description: "\(library) is missing: scripts/bootstrap installs the faketime package")
        }
        let source = folder.file("timerfd.c"), fix = folder.file("timerfd.so")
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let compiler = Command.find("clang") ?? Command.find("cc") ?? "clang"
        let result = try Command.run(compiler, ["-shared", "-fPIC", "-O2", "-o", fix, source, "-ldl"])
        guard result.status == 0 else { throw Failure(description: "\(compiler) timerfd.c (the timer fix for libfaketime): \(result.stderr)") }
        return ["LD_PRELOAD": "\(fix) \(library)", "FAKETIME": offset, "FAKETIME_DONT_FAKE_MONOTONIC": "1"]
    }
}
