import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the configured folders can be used as the daemon will use them (docs/daemon.md,
/// "Folders checked at start"): each exists (or can be made, for the folders the daemon
/// makes), is a folder, and the user the service runs as may do there what the jobs do —
/// list and rename out of the inbox, write into the outbox, failed, archive and state
/// folders. `dropcut watch --check` and the daemon's start run it: a folder that fails it
/// would fail every clip after a start that said ready.
package struct FolderCheck {
    /// The user the folders are checked as.
    package struct User: Sendable, Hashable {
        package var name: String
        package var uid: uid_t
        package var gid: gid_t
    }

    /// The packaged service's user (`systemd/dropcut.service` `User=`, made by
    /// `systemd/dropcut.sysusers`).
    package static let serviceUserName = "dropcut"

    /// A folder of the config: what it is, the access(2) mode its jobs need there, and
    /// whether the daemon makes it when it is missing.
    struct Use {
        var role: String
        var path: String
        var mode: Int32
        var madeIfMissing: Bool
        /// Whose it is (" (folder 'social')"), or "".
        var owner = ""
        /// "outbox /srv/out (folder 'social')": how a message names it.
        var subject: String { "\(role) \(path)\(owner)" }
        /// The state folder where the packaged units' `StateDirectory=dropcut` (or
        /// `dropcut/%i`) puts it: systemd makes it, and makes it the service user's.
        var isUnitStateDirectory: Bool {
            role == "state folder" && (path == FolderCheck.unitStateDirectory || path.hasPrefix(FolderCheck.unitStateDirectory + "/"))
        }
    }

    /// Where the units' `StateDirectory=` is.
    static let unitStateDirectory = "/var/lib/dropcut"

    let config: DaemonConfig

    package init(config: DaemonConfig) {
        self.config = config
    }

    /// Every problem, one line each, checked as the process's own user.
    package func problems() -> [String] {
        let me = Self.currentUser()
        return uses.compactMap { Self.problem(with: $0, user: me) } + sameFilesystemProblems()
    }

    /// Every problem, checked as `user` (its uid, gid and groups, taken on as the effective
    /// ids for the checks and given back after; only root can). Nil when the ids cannot be
    /// taken on.
    package func problems(as user: User) -> [String]? {
        guard geteuid() == 0 else { return user.uid == geteuid() ? problems() : nil }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user.name, user.gid, &groups, &count) < 0 {
            // More groups than room: `count` says how many.
            groups = [gid_t](repeating: 0, count: Int(max(0, count)))
            guard getgrouplist(user.name, user.gid, &groups, &count) >= 0 else { return nil }
        }
        let savedGroupCount = getgroups(0, nil)
        var saved = [gid_t](repeating: 0, count: Int(max(0, savedGroupCount)))
        guard savedGroupCount >= 0, getgroups(savedGroupCount, &saved) >= 0 else { return nil }
        let savedGid = getegid()
        guard setgroups(Int(count), groups) == 0, setegid(user.gid) == 0, seteuid(user.uid) == 0 else {
            _ = seteuid(0); _ = setegid(savedGid); _ = setgroups(saved.count, saved)
            return nil
        }
        // The unit's StateDirectory= makes the state folder and gives it to the service
        // user at each start: before the first, or owned by root, it is no mistake.
        let found = uses.filter { !$0.isUnitStateDirectory }.compactMap { Self.problem(with: $0, user: user) }
            + uses.filter(\.isUnitStateDirectory).compactMap { Self.typeProblem(with: $0) } + sameFilesystemProblems()
        // Back to root before anything else runs: a check that cannot give the ids back
        // must not go on as someone else.
        guard seteuid(0) == 0, setegid(savedGid) == 0, setgroups(saved.count, saved) == 0 else {
            FileHandle.standardError.write(Data("dropcut: cannot take back the ids after checking the folders as user \(user.name)\n".utf8))
            exit(1)
        }
        return found
    }

    /// The user the process runs as.
    package static func currentUser() -> User {
        let uid = geteuid()
        let name = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
        return User(name: name, uid: uid, gid: getegid())
    }

    /// User `name` (the packaged service user, `serviceUserName`, or another), when this
    /// machine has it.
    package static func user(named name: String) -> User? {
        guard let entry = getpwnam(name) else { return nil }
        return User(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// The folders of the config and what each is used for.
    var uses: [Use] {
        var uses = [Use(role: "state folder", path: config.stateDirectory, mode: R_OK | W_OK | X_OK, madeIfMissing: true)]
        for folder in config.folders {
            let owner = " (folder '\(folder.name)')"
            uses.append(Use(role: "inbox", path: folder.inbox, mode: R_OK | W_OK | X_OK, madeIfMissing: false, owner: owner))
            uses.append(Use(role: "outbox", path: folder.outbox, mode: W_OK | X_OK, madeIfMissing: true, owner: owner))
            uses.append(Use(role: "failed folder", path: folder.failed, mode: W_OK | X_OK, madeIfMissing: true, owner: owner))
            if let archive = folder.archive, folder.afterSuccess == .archive {
                uses.append(Use(role: "archive", path: archive, mode: W_OK | X_OK, madeIfMissing: true, owner: owner))
            }
            for assets in folder.assets {
                uses.append(Use(role: "asset folder", path: assets, mode: R_OK | X_OK, madeIfMissing: false, owner: owner))
            }
        }
        return uses
    }

    /// What is wrong with `use`'s folder for `user`, or nil.
    static func problem(with use: Use, user: User) -> String? {
        var info = stat()
        guard stat(use.path, &info) == 0 else {
            let code = errno
            if code == ENOENT && use.madeIfMissing { return creationProblem(use, user: user) }
            return "\(use.subject) " + unreachable(use.path, errno: code, user: user)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            return "\(use.subject) exists but is \(kind(info.st_mode)), not a folder"
        }
        guard faccessat(AT_FDCWD, use.path, use.mode, AT_EACCESS) == 0 else {
            let code = errno
            // Under the hardened unit (ProtectSystem=strict) a writable disk reads as
            // read-only unless the unit's drop-in lists the folder.
            let sandbox = code == EROFS
                ? "; if its filesystem is writable, the unit's ReadWritePaths= may not list it (dropcut watch --check --unit-drop-in)" : ""
            return "\(use.subject) is not usable by user \(user.name): \(permissionWords(use.mode)) denied (\(String(cString: strerror(code))))\(sandbox)"
        }
        return nil
    }

    /// What is wrong with `use`'s folder when it exists and is no folder, or nil: all that
    /// is checked of a folder the unit makes and owns for the service.
    static func typeProblem(with use: Use) -> String? {
        var info = stat()
        guard stat(use.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { return nil }
        return "\(use.subject) exists but is \(kind(info.st_mode)), not a folder"
    }

    /// Why `path` is no folder one can reach, as the process's own user ("does not
    /// exist", "cannot be reached: …", "exists but is a regular file, …"), or nil.
    package static func reachProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return unreachable(path, errno: errno, user: currentUser()) }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : "exists but is \(kind(info.st_mode)), not a folder"
    }

    /// Why `path` cannot be looked at, for a path `stat` failed on with `errno`: it is
    /// missing, an ancestor cannot be searched by `user`, or an ancestor is no folder.
    package static func unreachable(_ path: String, errno code: Int32, user: User) -> String {
        switch code {
        case ENOENT:
            return "does not exist (is its filesystem mounted?)"
        case EACCES:
            let blocked = ancestors(of: path).first { faccessat(AT_FDCWD, $0, X_OK, AT_EACCESS) != 0 }
            return "cannot be reached: user \(user.name) cannot search its parent folder \(blocked ?? (path as NSString).deletingLastPathComponent) (permission denied)"
        case ENOTDIR:
            let file = ancestors(of: path).first { dir in
                var info = stat()
                return stat(dir, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
            }
            return "cannot be reached: \(file ?? "a folder above it") is not a folder"
        default:
            return "cannot be reached: \(String(cString: strerror(code)))"
        }
    }

    /// A missing folder the daemon makes: its nearest existing ancestor must be a folder
    /// `user` can write into.
    static func creationProblem(_ use: Use, user: User) -> String? {
        var missing = use.path
        for ancestor in ancestors(of: use.path).reversed() {
            var info = stat()
            if stat(ancestor, &info) != 0 {
                let code = errno
                if code == ENOENT { missing = ancestor; continue }
                return "\(use.subject) " + unreachable(ancestor, errno: code, user: user)
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                return "\(use.subject) cannot be made: \(ancestor) is \(kind(info.st_mode)), not a folder"
            }
            guard faccessat(AT_FDCWD, ancestor, W_OK | X_OK, AT_EACCESS) == 0 else {
                let cause = String(cString: strerror(errno))
                return "\(use.subject) does not exist and cannot be made: user \(user.name) cannot create \(missing) in \(ancestor) "
                    + "(write and search permission denied: \(cause))"
            }
            return nil
        }
        return nil
    }

    /// Claims are renamed from the inbox into `<inbox>/.dropcut/claimed` (`ClaimRename`), and
    /// a rename cannot cross filesystems: both must be on the inbox's, not mounts of their own.
    func sameFilesystemProblems() -> [String] {
        config.folders.compactMap { folder in
            var inbox = stat()
            guard stat(folder.inbox, &inbox) == 0 else { return nil }
            for inner in [folder.workDirectory, folder.claimedDirectory] {
                var info = stat()
                guard lstat(inner, &info) == 0 else { return nil }
                // A symlink there is refused where it is used (`requireOwnDirectory`: that
                // inbox's claims stop, the other folders go on), not here.
                if (info.st_mode & S_IFMT) == S_IFLNK { return nil }
                if info.st_dev != inbox.st_dev {
                    return "\(inner) is on another filesystem than the inbox \(folder.inbox) of folder '\(folder.name)': "
                        + "claims are renamed into it, and a rename cannot cross filesystems"
                }
            }
            return nil
        }
    }

    /// `/a/b/c` → `/a`, `/a/b` (the folders above `path`, outermost first).
    static func ancestors(of path: String) -> [String] {
        var result: [String] = []
        var current = (path as NSString).deletingLastPathComponent
        while !current.isEmpty && current != "/" {
            result.insert(current, at: 0)
            current = (current as NSString).deletingLastPathComponent
        }
        return result
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFLNK: return "a symbolic link"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a folder"
        }
    }

    /// `W_OK | X_OK` → "write and search permission".
    static func permissionWords(_ mode: Int32) -> String {
        let words = [(R_OK, "read"), (W_OK, "write"), (X_OK, "search")].filter { mode & $0.0 != 0 }.map(\.1)
        return (words.count > 1 ? words.dropLast().joined(separator: ", ") + " and " + words.last! : words.joined()) + " permission"
    }
}
