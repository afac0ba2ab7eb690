import Foundation
import DropcutSupport

/// The one way finished files get their visible names in a folder: `dropcut render`'s
/// single output (a set of one) and its deliverable sets (`Deliverables.render`), and the
/// daemon's commit of every output. What differs between them is a parameter, never who
/// calls:
///
/// - `policy`: `.replace` renames over what has the name (a folder — an earlier render's
///   HLS ladder — moved aside and removed once the new one is in), as `mv` does; no
///   number. `.refuseExisting` publishes each name as it is, exclusively (link, else
///   renameat2 NOREPLACE, else a placeholder), and fails the whole commit — what it had
///   published taken back — when any name is found taken, even by a file that appeared
///   while the set rendered (`dropcut render -n`). `.neverReplace` takes one suffix for all the set's names (`setSuffix`: the
///   first `n` at which every name, `-n` before its extension, is free, so a manifest and
///   its files stay matched; 0 is the names as they are) and publishes each name
///   exclusively (`DurableFiles.publishExclusively`: link, else renameat2 NOREPLACE, else
///   a placeholder), so another host's file is never replaced; a name found taken on the
///   way (another host publishing it at that moment) takes back what the set published
///   under that suffix and starts again at the next.
/// - `durability`: `.durable` fsyncs each step before the next depends on it and leaves,
///   on a failure, the state as its last step left it, for the caller (the daemon, after a
///   crash too) to carry on from; `.volatile` fsyncs nothing and, on a failure, takes back
///   what it published and removes every temporary file: nothing is left to carry on from.
/// - the hooks of `publish`: `reserve` (a name given to this set by a coordinator; always
///   for the command line), `manifest` (the manifest's bytes, given the names the files
///   get) and `step` (called after each irreversible step with the state, which the
///   daemon records).
///
/// The order is the same for every caller: the suffix chosen (and told to `step`) before
/// anything is published; the manifest, listing the names the files get, written complete
/// under its temporary name before any file is published — a full disk fails the commit
/// there, with nothing of the set visible —; each file published; the manifest published
/// last, so its presence says the set is complete; the folder fsynced.
package struct SetCommit: Sendable {
    /// What happens to a name something already has.
    package enum Policy: Sendable, Hashable {
        /// Renamed over, as `mv` does (the command line's outputs).
        case replace
        /// Never touched, and the commit fails (`SetCommitError`, its cause EEXIST, naming
        /// the name): `dropcut render -n`. Each name is published exclusively, so a file
        /// that appears at any moment before its name is taken is never replaced.
        case refuseExisting
        /// Never touched: the set takes the next suffix (the daemon's outbox).
        case neverReplace
    }

    /// How far a commit survives a crash, and what a failure leaves (see the type's comment).
    package enum Durability: Sendable, Hashable {
        case volatile
        case durable
    }

    /// What a commit advances: every entry (published or not, where, its inode) and the
    /// set's suffix once chosen — what the daemon stores in its record and hands back after
    /// a crash.
    package struct State: Sendable, Hashable {
        package var entries: [SetEntry]
        package var suffix: Int?

        package init(entries: [SetEntry], suffix: Int? = nil) {
            self.entries = entries
            self.suffix = suffix
        }

        /// A single output as a set of one: its file, of kind `output`, and no manifest.
        package static func setOfOne(temporary: String, name: String, inode: UInt64? = nil) -> State {
            State(entries: [.singleOutput(name, temporary: temporary, inode: inode)])
        }
    }

    /// The manifest's permissions: written 0600 and then given these (the daemon's
    /// `output_mode` and `output_group`); nil, it is created as any file the process
    /// writes (0666 less the umask).
    package struct Permissions: Sendable, Hashable {
        package var mode: mode_t
        package var group: gid_t?

        package init(mode: mode_t, group: gid_t?) {
            self.mode = mode
            self.group = group
        }
    }

    package let directory: String
    package let policy: Policy
    package let durability: Durability
    /// Tells this set's temporary names and placeholders apart from others' (a process or
    /// job id): a placeholder a crash left under this tag is the set's own.
    package let tag: String
    package var manifestPermissions: Permissions?

    package init(directory: String, policy: Policy, durability: Durability, tag: String, manifestPermissions: Permissions? = nil) {
        self.directory = directory
        self.policy = policy
        self.durability = durability
        self.tag = tag
        self.manifestPermissions = manifestPermissions
    }

    /// Whether `entries` is a set this commit publishes: files and their manifest last, or
    /// one single output (kind `output`) and no manifest.
    package static func isWellFormed(_ entries: [SetEntry]) -> Bool {
        guard !entries.isEmpty, entries.dropLast().allSatisfy({ !$0.isManifest && !$0.isSingleOutput }) else { return false }
        return entries.last?.isManifest == true ? entries.count >= 2 : (entries.count == 1 && entries[0].isSingleOutput)
    }

    /// Publishes every entry of `state` not yet published (see the type's comment), from
    /// wherever an earlier attempt left it. `manifest` makes the manifest's bytes from the
    /// set's files and the names they get (needed when the set has a manifest); `reserve`
    /// is asked for each name under a candidate suffix (`.neverReplace`); `step` is called
    /// after each irreversible step. Throws `SetCommitError` for a set that is not well
    /// formed, `SystemError` for a file step, and what a hook throws.
    package func publish(_ state: inout State,
                         reserve: (String) throws -> Bool = { _ in true },
                         manifest: ((_ files: [SetEntry], _ names: [String]) throws -> Data)? = nil,
                         step: (State) throws -> Void = { _ in }) throws {
        guard Self.isWellFormed(state.entries) else {
            throw SetCommitError(function: "publish (a set is files and their manifest last, or one output)",
                                 path: directory, cause: nil)
        }
        do {
            try advance(&state, reserve: reserve, manifest: manifest, step: step)
        } catch {
            if durability == .volatile { abandon(&state) }
            throw error
        }
    }

    private func advance(_ state: inout State, reserve: (String) throws -> Bool,
                         manifest makeManifest: (([SetEntry], [String]) throws -> Data)?,
                         step: (State) throws -> Void) throws {
        // Each file's inode (the daemon records it when the render is sealed): what tells
        // the set's own file from another's when it is taken back.
        for index in state.entries.indices where state.entries[index].inode == nil && !state.entries[index].isManifest {
            var info = stat()
            if let temporary = state.entries[index].temporary, lstat(temporary, &info) == 0 {
                state.entries[index].inode = UInt64(info.st_ino)
            }
        }
        let files = state.entries.indices.filter { !state.entries[$0].isManifest }
        let manifest = state.entries.last?.isManifest == true ? state.entries.count - 1 : nil
        var start = 0
        while true {
            let suffix: Int
            if let recorded = state.suffix {
                suffix = recorded
            } else {
                var free = try freeSuffix(for: state.entries, from: start)
                while try !state.entries.allSatisfy({ try reserve(DurableFiles.numbered($0.publishedName, free)) }) {
                    free = try freeSuffix(for: state.entries, from: free + 1)
                }
                suffix = free
                state.suffix = suffix
                try step(state)
            }
            let paths = state.entries.map { (directory as NSString).appendingPathComponent(DurableFiles.numbered($0.publishedName, suffix)) }
            // Published under another number (a crash in the middle of taking a set back).
            if state.entries.indices.contains(where: { state.entries[$0].output != nil && state.entries[$0].output != paths[$0] }) {
                takeBack(&state.entries, remove: false)
            }
            if let manifest, state.entries[manifest].output == nil {
                guard let makeManifest else {
                    throw SetCommitError(function: "publish (a set with a manifest needs its bytes)", path: paths[manifest], cause: nil)
                }
                let temporary = state.entries[manifest].temporary
                    ?? PartialOutput(directory: directory, filename: state.entries[manifest].name, tag: tag).path
                state.entries[manifest].temporary = temporary
                let data = try makeManifest(files.map { state.entries[$0] }, files.map { (paths[$0] as NSString).lastPathComponent })
                state.entries[manifest].inode = try writeManifest(data, to: temporary)
                try step(state)
            }
            var taken = false
            for index in files where state.entries[index].output == nil {
                guard let temporary = state.entries[index].temporary else { continue }
                guard try place(temporary, at: paths[index]) else {
                    taken = true
                    break
                }
                // On disk before the state says so.
                if durability == .durable { try DurableFiles.sync(directory) }
                state.entries[index].output = paths[index]
                try step(state)
            }
            if !taken, let manifest, state.entries[manifest].output == nil, let temporary = state.entries[manifest].temporary {
                if try place(temporary, at: paths[manifest]) {
                    state.entries[manifest].output = paths[manifest]
                } else {
                    taken = true
                }
            }
            guard taken else { break }
            // Taken between the look and the publish: the set starts again at the next number.
            takeBack(&state.entries, remove: false)
            start = suffix + 1
            state.suffix = nil
            try step(state)
        }
        if durability == .durable { try DurableFiles.sync(directory) }
    }

    /// Gives the finished `temporary` the name `path` by the policy: true when published,
    /// false when the name is taken (`.neverReplace` only: `.refuseExisting` throws).
    private func place(_ temporary: String, at path: String) throws -> Bool {
        switch policy {
        case .neverReplace:
            return try DurableFiles.publishExclusively(temporary, as: path, tag: tag)
        case .replace:
            try Self.replace(path, with: temporary, tag: tag)
            return true
        case .refuseExisting:
            guard try DurableFiles.publishExclusively(temporary, as: path, tag: tag) else {
                throw SetCommitError(function: "publish (the name exists; nothing of the set is published)", path: path,
                                     cause: SystemError(errno: EEXIST, function: "link", path: path))
            }
            return true
        }
    }

    /// Renames `temporary` to `destination`, replacing what is there, as `rename(2)` does
    /// for a file; a folder (an earlier render's HLS ladder) is moved aside first and
    /// removed once the new one is in place — rename(2) refuses to replace a folder that
    /// is not empty. Throws naming `destination`.
    static func replace(_ destination: String, with temporary: String, tag: String) throws(SystemError) {
        if rename(temporary, destination) == 0 { return }
        guard errno == ENOTEMPTY || errno == EEXIST else { throw SystemError.last("rename", destination) }
        let aside = PartialOutput(besides: destination + ".replaced", tag: tag)
        guard rename(destination, aside.path) == 0 else { throw SystemError.last("rename (moving the earlier one aside)", destination) }
        guard rename(temporary, destination) == 0 else {
            let error = SystemError.last("rename", destination)
            _ = rename(aside.path, destination)
            throw error
        }
        aside.remove()
    }

    /// The first number from `start` at which no name of the set is taken — or taken by
    /// the set's own file already (published before a crash), or by a placeholder this
    /// tag left there in a crash (a ladder's: an empty folder), which publishing replaces.
    /// Always 0 under `.replace` and `.refuseExisting`: a taken name is replaced, or
    /// fails the commit, never avoided.
    package func freeSuffix(for entries: [SetEntry], from start: Int) throws(SystemError) -> Int {
        if policy != .neverReplace { return 0 }
        for n in start..<DurableFiles.maximumNumbered {
            let free = entries.allSatisfy { entry in
                let path = (directory as NSString).appendingPathComponent(DurableFiles.numbered(entry.publishedName, n))
                var info = stat()
                if lstat(path, &info) != 0 { return errno == ENOENT }
                return entry.output == path
                    || (!entry.isManifest && PublishPlaceholder.isLeftover(at: Array(path.utf8CString), tag: tag, folder: entry.isLadder))
            }
            if free { return n }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)",
                          path: (directory as NSString).appendingPathComponent(entries.first?.name ?? "?"))
    }

    /// Takes back what the set has published: each file renamed back to its temporary
    /// name (or, `remove`, unlinked; a ladder's folder removed with what it holds), the
    /// manifest removed (it is written again for the names the set gets). Only names that
    /// still hold the set's own file (or folder: its inode) are touched.
    package func takeBack(_ entries: inout [SetEntry], remove: Bool) {
        for index in entries.indices {
            guard let output = entries[index].output else { continue }
            var info = stat()
            let own = lstat(output, &info) == 0 && entries[index].inode == UInt64(info.st_ino)
            if own {
                if entries[index].isManifest || remove {
                    PartialOutput(path: output).remove()   // a ladder's folder whole
                } else if let temporary = entries[index].temporary {
                    var left = stat()
                    if lstat(temporary, &left) == 0, left.st_ino == info.st_ino {
                        unlink(output)   // both names are the file (a rename would do nothing)
                    } else {
                        _ = rename(output, temporary)
                    }
                }
            }
            entries[index].output = nil
            if entries[index].isManifest, let temporary = entries[index].temporary {
                unlink(temporary)
                entries[index].inode = nil
            }
        }
        if durability == .durable { try? DurableFiles.sync(directory) }
    }

    /// A volatile commit that failed: nothing of the set stays, published or temporary.
    private func abandon(_ state: inout State) {
        takeBack(&state.entries, remove: true)
        for entry in state.entries {
            if let temporary = entry.temporary { PartialOutput(path: temporary).remove() }
        }
    }

    /// Writes the manifest's `data` to `path` (a new file: an earlier write's, for other
    /// names or cut short by a crash, is removed first), complete — and, durable, fsynced —
    /// with `manifestPermissions`; returns its inode.
    private func writeManifest(_ data: Data, to path: String) throws(SystemError) -> UInt64 {
        unlink(path)
        let fd = try sys("open", path) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, manifestPermissions == nil ? 0o666 : 0o600) }
        let failed = data.withUnsafeBytes { FileWriting.writeAll(fd, $0.baseAddress, $0.count) }
        var code = failed, function = "write"
        if code == 0, durability == .durable, fsync(fd) != 0 { (code, function) = (errno, "fsync") }
        var info = stat()
        if code == 0, fstat(fd, &info) != 0 { (code, function) = (errno, "fstat") }
        close(fd)
        guard code == 0 else {
            unlink(path)
            throw SystemError(errno: code, function: function, path: path)
        }
        if let manifestPermissions {
            try DurableFiles.apply(mode: manifestPermissions.mode, group: manifestPermissions.group, to: path)
        }
        if durability == .durable { try DurableFiles.sync(path) }
        return UInt64(info.st_ino)
    }
}
