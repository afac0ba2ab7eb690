import Foundation
import DropcutSupport

/// A clip in an inbox that has fully arrived, with the sidecars that go with it.
package struct SettledClip: Sendable, Hashable {
    /// The printable form of its name (`RawFileName`): the name itself, unless it is not
    /// UTF-8 or holds control characters or backslashes. Unique to the name's bytes.
    package var name: String
    /// `clip.yaml`, `clip.AAE`, `clip.srt`... beside it (any letter case of the extension), printable.
    package var sidecars: [String]
    /// Modification time, for oldest-first order.
    package var modified: Date
    /// Its size and modification time in nanoseconds, as listed: with the name, the key a
    /// coordinator that assigns claims knows the clip by.
    package var size: Int64 = 0
    package var modifiedNanoseconds: Int64 = 0
    /// Sidecars beside it that are not regular files (a symlink, FIFO, socket or device
    /// named `clip.srt`), printable: never claimed nor read — a symlink could name any file
    /// the daemon can read —, and the clip fails naming them, as `dropcut render` does.
    package var unreadableSidecars: [String] = []
}

/// What one listing of an inbox found.
package enum InboxListing: Sendable, Hashable {
    /// Clips that have settled, oldest first, and how many are still arriving.
    case listed(settled: [SettledClip], arriving: Int)
    /// The inbox cannot be listed, or is not the folder it was (unmounted): never "empty".
    case unavailable(String)
}

/// Lists an inbox and decides which files have fully arrived: a file has settled once its
/// size, mtime and ctime (and those of its sidecars) have stayed the same for `settle`,
/// measured by this process's monotonic clock across listings — also for a file seen for
/// the first time (one already there when the daemon starts waits one `settle` too). The
/// file times are only compared with themselves, never with this host's clock: a file
/// server whose clock is behind (its mtimes look old) or ahead must not make a clip
/// mid-upload look settled. ctime cannot be set back by a copying tool, so a writer that
/// preserves timestamps still counts as active. Polling is what works on NFS/SMB; inotify
/// only makes the next listing come sooner.
///
/// Skipped without a stat (cheap for inboxes with thousands of them): hidden names,
/// `.part`, `.crdownload`, `.tmp`, `~`, recipes (`.yaml`/`.yml`), sidecars (`.aae`, captions `.srt`/`.vtt`),
/// and anything that is not a regular file (folders, symlinks, `.dropcut/`).
///
/// Names are read as bytes and listed in their printable form (`RawFileName`), so a name
/// that is not UTF-8 (`caf<E9>.mov` from a Latin-1 client) is listed as `caf\xE9.mov`
/// — and claimed, rendered and reported — instead of being skipped for ever.
package struct InboxScanner: Sendable {
    struct Signature: Hashable, Sendable {
        var size: Int64, modified: Int64, changed: Int64
    }
    struct Observation: Sendable {
        var signature: [Signature]
        var since: ContinuousClock.Instant
    }

    package let inbox: String
    package var settle: Duration
    private var observations: [String: Observation] = [:]
    /// When the soonest of the files still arriving will have settled if it stays as it is
    /// (nil: none arriving), so the scheduler can look again right then.
    package private(set) var nextSettle: ContinuousClock.Instant?
    /// The inbox's mount point when the scanner was made (at start, before the daemon
    /// says it is ready) or at the last good listing: another one later means the share
    /// was unmounted (an empty mount point is not an empty inbox). Noted at once, not at
    /// the first listing: a share unmounted between start and that listing would
    /// otherwise be taken for the inbox's own place.
    private var mountPoint: String?

    package init(inbox: String, settle: Duration) {
        self.inbox = inbox
        self.settle = settle
        mountPoint = try? FolderMounts.mountPoint(of: inbox)
    }

    static let skippedSuffixes = [".part", ".crdownload", ".tmp", "~", ".partial"]
    static let sidecarExtensions = ["yaml", "yml", "aae", "srt", "vtt"]

    /// Whether a name is never a clip.
    package static func isIgnored(_ name: String) -> Bool {
        if name.hasPrefix(".") { return true }
        let lower = name.lowercased()
        if skippedSuffixes.contains(where: { lower.hasSuffix($0) }) { return true }
        return sidecarExtensions.contains((lower as NSString).pathExtension)
    }

    /// An entry's name, its bytes read in place up to its NUL. Not `entry.pointee.d_name`:
    /// that copies all 256 bytes of the field, but readdir's records are only as long as
    /// their name (`d_reclen`), so the copy can run off the end of glibc's buffer — it did,
    /// as a segfault once in a few thousand polls of an inbox of 10,000 files. Not
    /// `String(cString:)` either: that replaces bytes that are not UTF-8 with U+FFFD, a
    /// name no file has (such clips were skipped for ever).
    static func name(of entry: UnsafeMutablePointer<dirent>) -> RawFileName? {
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
        let start = (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self)
        return RawFileName(bytes: UnsafeRawBufferPointer(start: start, count: strlen(start)))
    }

    /// A file time in nanoseconds since 1970, saturated: anyone can set an mtime after
    /// 2262 (`touch -d 2300-01-01`), which overflows Int64 nanoseconds.
    static func nanoseconds(_ time: timespec) -> Int64 {
        let (product, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return time.tv_sec < 0 ? .min : .max }
        let (sum, overflowed) = product.addingReportingOverflow(Int64(time.tv_nsec))
        return overflowed ? .max : sum
    }

    /// What is wrong with the inbox's mount, given the mount point it was on (`before`, nil
    /// at the first scan) and what looking it up gave `now`; nil when nothing is. A lookup
    /// that failed — out of descriptors (EMFILE, ENFILE) above all — is said as it is:
    /// it is not an unmounted share.
    package static func mountProblem(inbox: String, before: String?, now: Result<String?, SystemError>) -> String? {
        switch now {
        case let .failure(error):
            return "cannot check the mount of the inbox \(inbox): \(error)"
        case let .success(mount):
            guard let before, mount != before else { return nil }
            return "the inbox \(inbox) is no longer on \(before) but on \(mount ?? "nothing") (unmounted?)"
        }
    }

    /// Lists the inbox now (`now`: this process's clock, for settling).
    package mutating func scan(now: ContinuousClock.Instant = .now) -> InboxListing {
        var info = stat()
        guard stat(inbox, &info) == 0 else {
            return .unavailable("cannot read the inbox \(inbox): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return .unavailable("the inbox \(inbox) is not a folder") }
        // By mount point, not device number: a share mounted again gets a new device
        // number and is back; its bare mount point (or a symlink now elsewhere) is not.
        let mount = Result { () throws(SystemError) -> String? in try FolderMounts.mountPoint(of: inbox) }
        if let problem = Self.mountProblem(inbox: inbox, before: mountPoint, now: mount) { return .unavailable(problem) }
        guard let dir = opendir(inbox) else {
            return .unavailable("cannot list the inbox \(inbox): \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        mountPoint = try? mount.get()
        let fd = dirfd(dir)

        var files: [String: (Signature, Date)] = [:]
        var sidecars: [String: [String]] = [:]   // lower-cased stem -> sidecar names
        var unreadable: [String: [String]] = [:]   // lower-cased stem -> sidecars that are not regular files
        while let entry = readdir(dir) {
            guard let raw = Self.name(of: entry) else { continue }
            let name = raw.printable
            if name.hasPrefix(".") { continue }
            let type = entry.pointee.d_type
            let ext = (name as NSString).pathExtension.lowercased()
            let isSidecar = Self.sidecarExtensions.contains(ext)
            // A sidecar of any kind but a folder is looked at: one that is not a regular
            // file fails its clip rather than being left out without a word.
            if type == UInt8(DT_DIR) || (!isSidecar && type != UInt8(DT_REG) && type != UInt8(DT_UNKNOWN)) { continue }
            if !isSidecar && Self.isIgnored(name) { continue }
            var st = stat()
            guard fstatat(fd, raw.path(in: nil), &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind = st.st_mode & S_IFMT
            if kind != S_IFREG {
                if isSidecar && kind != S_IFDIR && !["recipe.yaml", "recipe.yml"].contains(name.lowercased()) {
                    unreadable[(name as NSString).deletingPathExtension.lowercased(), default: []].append(name)
                }
                continue
            }
            let signature = Signature(size: Int64(st.st_size), modified: Self.nanoseconds(st.st_mtim),
                                      changed: Self.nanoseconds(st.st_ctim))
            let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
            files[name] = (signature, modified)
            // recipe.yaml is the inbox's recipe, never the sidecar of a clip named recipe.*
            if isSidecar && !["recipe.yaml", "recipe.yml"].contains(name.lowercased()) {
                sidecars[(name as NSString).deletingPathExtension.lowercased(), default: []].append(name)
            }
        }

        var settled: [SettledClip] = [], arriving = 0
        nextSettle = nil
        var seen: [String: Observation] = [:]
        for (name, (signature, modified)) in files {
            let ext = (name as NSString).pathExtension.lowercased()
            if Self.sidecarExtensions.contains(ext) { continue }
            let mine = (sidecars[(name as NSString).deletingPathExtension.lowercased()] ?? []).sorted()
            let signatures = [signature] + mine.compactMap { files[$0]?.0 }
            var observation = observations[name] ?? Observation(signature: signatures, since: now)
            if observation.signature != signatures { observation = Observation(signature: signatures, since: now) }
            seen[name] = observation
            if now - observation.since >= settle {
                settled.append(SettledClip(name: name, sidecars: mine, modified: modified,
                                           size: signature.size, modifiedNanoseconds: signature.modified,
                                           unreadableSidecars: (unreadable[(name as NSString).deletingPathExtension.lowercased()] ?? []).sorted()))
            } else {
                arriving += 1
                let due = observation.since + settle
                nextSettle = min(nextSettle ?? due, due)
            }
        }
        observations = seen
        settled.sort { ($0.modified, $0.name) < ($1.modified, $1.name) }
        return .listed(settled: settled, arriving: arriving)
    }

    /// Forgets a clip (claimed by this or another process).
    package mutating func forget(_ name: String) {
        observations[name] = nil
    }
}
