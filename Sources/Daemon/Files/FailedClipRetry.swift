import Foundation
import DropcutPipeline
import DropcutSupport

/// Puts a failed clip back in its inbox to be rendered again (`dropcut retry`, the status
/// page's Retry button): the clip and its sidecars move from the folder's failed folder to
/// its inbox under the same names — sidecars first, so the clip never settles without
/// them — and its error file is removed (it was about the last attempt).
package enum FailedClipRetry {
    /// Why a clip cannot be retried.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case noSuchFolder(String)
        case badName(String)
        case notFailed(folder: String, name: String, failedFolder: String)
        /// A file of that name is in the inbox already (it would be replaced).
        case inboxHasIt(String)
        case system(SystemError)

        package var description: String {
            switch self {
            case let .noSuchFolder(name): "no folder named '\(name)' in the config"
            case let .badName(name): "'\(name)' is not a file name (no /, no leading dot)"
            case let .notFailed(folder, name, failed): "\(name) is not a failed clip of folder \(folder) (nothing of that name in \(failed))"
            case let .inboxHasIt(path): "\(path) exists already; move or rename it first"
            case let .system(error): "\(error)"
            }
        }
    }

    /// What moved: the paths in the inbox (printable forms), the clip last.
    ///
    /// `name` is the clip's name as dropcut shows it — its printable form (`RawFileName`:
    /// `caf\xE9.mov` for a Latin-1 name, `a\x0Ab.mov` for one with a newline), as the
    /// status page, `dropcut status` and the journal give it — or its own bytes when those
    /// are UTF-8 (`$'a\nb.mov'` in a shell). Failed clips are in failed/ under the bytes
    /// they were dropped with, and go back to the inbox under them.
    @discardableResult
    package static func retry(_ name: String, folder folderName: String, config: DaemonConfig) throws(Refusal) -> [String] {
        guard let folder = config.folder(named: folderName) else { throw .noSuchFolder(folderName) }
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.contains("\0"),
              name.utf8.count <= FileName.maximumBytes * 4, !name.hasSuffix(".error.txt") else { throw .badName(name) }
        guard let clip = failedClip(name, in: folder.failed) else {
            throw .notFailed(folder: folder.name, name: name, failedFolder: folder.failed)
        }
        guard !InboxScanner.sidecarExtensions.contains((clip.printable as NSString).pathExtension.lowercased()) else { throw .badName(name) }
        let stem = (clip.printable as NSString).deletingPathExtension.lowercased()
        let sidecars = entries(of: folder.failed).filter { entry in
            !entry.printable.hasPrefix(".") && entry != clip
                && (entry.printable as NSString).deletingPathExtension.lowercased() == stem
                && InboxScanner.sidecarExtensions.contains((entry.printable as NSString).pathExtension.lowercased())
        }.sorted { $0.printable < $1.printable }
        let names = sidecars + [clip]
        for moving in names {
            if access(moving.path(in: folder.inbox), F_OK) == 0 {
                throw .inboxHasIt((folder.inbox as NSString).appendingPathComponent(moving.printable))
            }
        }
        let tag = "retry-" + JobRecord.newID()
        var moved: [String] = []
        do {
            for moving in names {
                let source = try reachable(moving, in: folder.failed)
                let final = try DurableFiles.move(source, into: folder.inbox, name: moving.printable, dropped: moving, tag: tag)
                moved.append((folder.inbox as NSString).appendingPathComponent(final.printable))
            }
        } catch {
            throw .system(error)
        }
        // Named after the clip's printable form, as the failure wrote it.
        unlink((folder.failed as NSString).appendingPathComponent(FileName.fitting(clip.printable, suffix: ".error.txt")))
        return moved
    }

    /// The file in `failed` that `name` names: its printable form decoded, else its bytes as
    /// given (a name with a backslash that is no escape); nil when neither is a plain file.
    static func failedClip(_ name: String, in failed: String) -> RawFileName? {
        var candidates: [RawFileName] = []
        if let decoded = RawFileName(printable: name) { candidates.append(RawFileName(bytes: decoded.bytes)) }
        candidates.append(RawFileName(bytes: Array(name.utf8)))
        for candidate in candidates where candidate.isPlainName && !candidate.bytes.starts(with: [0x2E]) {
            var info = stat()
            if lstat(candidate.path(in: failed), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { return candidate }
        }
        return nil
    }

    /// The names in `directory`, as their bytes (Foundation's listing would mangle names
    /// that are not UTF-8).
    static func entries(of directory: String) -> [RawFileName] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [RawFileName] = []
        while let entry = readdir(dir) {
            guard let name = InboxScanner.name(of: entry), name.bytes != [0x2E], name.bytes != [0x2E, 0x2E] else { continue }
            names.append(name)
        }
        return names
    }

    /// A path naming `file` in `directory` that a `String` can hold: the file's own when its
    /// bytes are UTF-8; else it is first linked under its printable form there (never
    /// replacing a file) and its byte name removed — a crash in between leaves it under
    /// both names, in failed/, where it can be retried again.
    static func reachable(_ file: RawFileName, in directory: String) throws(SystemError) -> String {
        if let text = String(validating: file.bytes, as: UTF8.self) {
            return (directory as NSString).appendingPathComponent(text)
        }
        let printable = (directory as NSString).appendingPathComponent(file.printable)
        try sys("link", printable) { link(file.path(in: directory), printable) }
        try sys("unlink", printable) { unlink(file.path(in: directory)) }
        return printable
    }
}
