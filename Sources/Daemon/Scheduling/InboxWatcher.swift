import Foundation
import DropcutSupport
import Synchronization

/// Wakes the scheduler when something arrives in an inbox, through inotify, so a clip is
/// seen at once instead of at the next poll. Only a hint: polling stays the source of
/// truth (inotify says nothing about changes made by other hosts on NFS/SMB), and where
/// inotify cannot be used, nothing changes but the latency.
final class InboxWatcher: Sendable {
    private let fd: Int32
    /// Folder → watch descriptor. The lock also keeps two `watch` calls from interleaving.
    private let watches = Mutex<[String: Int32]>([:])
    private let stopped = Atomic<Bool>(false)
    private let onChange: @Sendable () -> Void

    /// Nil when inotify is not available (no more instances, a kernel without it).
    init?(onChange: @escaping @Sendable () -> Void) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        self.onChange = onChange
        let thread = Thread { [weak self] in
            ThreadName.set("dropcut-inotify")
            self?.readLoop()
        }
        thread.start()
    }

    /// Watches exactly these folders from now on (a reload may add or remove some).
    func watch(_ folders: [String]) {
        watches.withLock { watches in
            for (folder, wd) in watches where !folders.contains(folder) {
                inotify_rm_watch(fd, wd)
                watches[folder] = nil
            }
            let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
            for folder in folders where watches[folder] == nil {
                let wd = inotify_add_watch(fd, folder, events)
                if wd >= 0 { watches[folder] = wd }
            }
        }
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Waits for events (poll with a timeout, so `stop` is noticed) and coalesces each
    /// burst into one wake-up.
    private func readLoop() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 500) > 0 else { continue }
            var any = false
            while read(fd, buffer, 64 * 1024) > 0 { any = true }
            if any { onChange() }
        }
        close(fd)
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    deinit {
        stop()
    }
}
