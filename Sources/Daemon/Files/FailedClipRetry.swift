import Foundation
import Support

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

    /// What moved: the paths in the inbox, the clip last.
    @discardableResult
    package static func retry(_ name: String, folder folderName: String, config: DaemonConfig) throws(Refusal) -> [String] {
        guard let folder = config.folder(named: folderName) else { throw .noSuchFolder(folderName) }
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.contains("\0"),
              name.utf8.count <= FileName.maximumBytes, !name.hasSuffix(".error.txt"),
              !InboxScanner.sidecarExtensions.contains((name as NSString).pathExtension.lowercased()) else { throw .badName(name) }
        let source = (folder.failed as NSString).appendingPathComponent(name)
        var info = stat()
        guard lstat(source, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .notFailed(folder: folder.name, name: name, failedFolder: folder.failed)
        }
        let stem = (name as NSString).deletingPathExtension.lowercased()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.failed)) ?? []
        let sidecars = entries.filter { entry in
            !entry.hasPrefix(".") && entry != name
                && (entry as NSString).deletingPathExtension.lowercased() == stem
                && InboxScanner.sidecarExtensions.contains((entry as NSString).pathExtension.lowercased())
        }.sorted()
        let names = sidecars + [name]
        for moving in names {
            let target = (folder.inbox as NSString).appendingPathComponent(moving)
            if access(target, F_OK) == 0 { throw .inboxHasIt(target) }
        }
        let tag = "retry-" + JobRecord.newID()
        var moved: [String] = []
        do {
            for moving in names {
                moved.append(try DurableFiles.move((folder.failed as NSString).appendingPathComponent(moving), into: folder.inbox,
                                                   name: moving, tag: tag))
            }
        } catch {
            throw .system(error)
        }
        unlink((folder.failed as NSString).appendingPathComponent(FileName.fitting(name, suffix: ".error.txt")))
        return moved
    }
}
