import Foundation

/// Names the calling thread, as `top -H`, `ps -L` and core dumps show it. Written to
/// `/proc/thread-self/comm`, which names exactly this thread: Foundation's
/// `Thread.current.name` on Linux does nothing for a name set before `start`, and from
/// inside a freshly started thread it was seen to miss under load.
public enum ThreadName {
    /// Sets the name, cut to the 15 bytes Linux keeps. Best effort: a missing /proc
    /// changes nothing but what tools show.
    public static func set(_ name: String) {
        let cut = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = cut.withCString { write(fd, $0, strlen($0)) }
    }
}
