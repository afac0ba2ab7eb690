import Foundation
import DropcutSupport

/// The lock on a state folder (`<state_dir>/lock`, flock(2), exclusive): two daemons on
/// one state folder would take each other's job records for their own. Held from start
/// until this value is gone (the descriptor closed in `deinit`).
final class StateFolderLock {
    private let descriptor: Int32

    /// Locks `stateDirectory`; throws `DaemonError` naming the folder and the lock when
    /// another dropcut holds it.
    init(stateDirectory: String) throws {
        let path = (stateDirectory as NSString).appendingPathComponent("lock")
        let fd = try sys("open", path) { open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DaemonError("another dropcut is already using the state folder \(stateDirectory) (\(path) is locked); give each daemon its own state_dir")
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }
}
