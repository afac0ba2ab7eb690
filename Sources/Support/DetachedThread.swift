import Foundation

/// Starts a named thread of its own for blocking work (FFmpeg, fsync) and says when it
/// could not: Foundation's `Thread.start()` on Linux ignores a failed `pthread_create`,
/// and whoever waits for that thread's result then waits forever — which is what a
/// worker at its memory limit did (no room for another thread's stack).
public enum DetachedThread {
    /// A thread that could not be started: `pthread_create`'s error (EAGAIN when the
    /// process is out of memory or threads).
    public struct StartError: Error, Sendable, CustomStringConvertible {
        public let errno: Int32
        public let name: String
        public var description: String { "cannot start the thread \(name): \(String(cString: strerror(errno)))" }
    }

    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Runs `body` on a new detached thread named `name` (cut to Linux's 15 bytes).
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            ThreadName.set(body.name)
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw StartError(errno: result, name: name)
        }
        pthread_detach(thread)
    }
}
