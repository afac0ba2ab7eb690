import Foundation
import Logging
import DropcutRender
import DropcutSupport

/// Publishing a rendered deliverable set into its folder as `dropcut render` does: every
/// file renamed from its temporary name into place, replacing what is there (a file by
/// `rename(2)`, an earlier render's HLS folder moved aside and removed once the new one
/// is in), then the manifest, written last: its presence says the set is complete. A
/// failure takes back what was published. (The daemon publishes durably and never
/// replacing a name: `JobRunner.commitSet`.)
struct SetPublisher {
    let deliverables: Deliverables
    let directory: String
    let tag: String

    /// Publishes `files` (what `SetRender` made, under their temporary names). Returns
    /// them with the manifest last.
    func publish(_ files: [Deliverables.File]) throws -> [Deliverables.File] {
        let (items, manifestFilename, input) = (deliverables.items, deliverables.manifestFilename, deliverables.input)
        let partials = deliverables.temporaries(in: directory, tag: tag).map { PartialOutput(path: $0) }
        // Publish: every file renamed into place; a failure takes back what was published.
        var published: [String] = []
        func undo() {
            for path in published { PartialOutput(path: path).remove() }
            for partial in partials { partial.remove() }
        }
        for (partial, item) in zip(partials, items) {
            let destination = (directory as NSString).appendingPathComponent(item.publishedName)
            guard Self.replace(destination, with: partial.path, tag: tag) else {
                let error = SystemError(errno: errno, function: "rename", path: destination)
                undo()
                throw error
            }
            published.append(destination)
        }
        // The manifest last: its presence says the set is complete.
        let manifestPartial = PartialOutput(directory: directory, filename: manifestFilename, tag: tag)
        let manifestPath = (directory as NSString).appendingPathComponent(manifestFilename)
        do {
            let data = try Deliverables.manifest(input: input, files: files)
            guard FileManager.default.createFile(atPath: manifestPartial.path, contents: data) else {
                throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: manifestPartial.path)
            }
            guard rename(manifestPartial.path, manifestPath) == 0 else {
                throw SystemError(errno: errno, function: "rename", path: manifestPath)
            }
        } catch {
            manifestPartial.remove()
            undo()
            throw error
        }
        let manifestFile = Deliverables.File(name: manifestFilename, kind: "manifest", bytes: try FileSize.bytes(at: manifestPath),
                                width: 0, height: 0, duration: nil, time: nil, sha256: "")
        return files + [manifestFile]
    }

    /// Renames `partial` to `destination`, replacing what is there, as `rename(2)` does for
    /// a file; a folder (an earlier render's HLS ladder) is moved aside first and removed
    /// once the new one is in place. False with `errno` set when it cannot.
    static func replace(_ destination: String, with partial: String, tag: String) -> Bool {
        if rename(partial, destination) == 0 { return true }
        guard errno == ENOTEMPTY || errno == EEXIST else { return false }
        let aside = PartialOutput(besides: destination + ".replaced", tag: tag)
        guard rename(destination, aside.path) == 0 else { return false }
        guard rename(partial, destination) == 0 else {
            let saved = errno
            _ = rename(aside.path, destination)
            errno = saved
            return false
        }
        aside.remove()
        return true
    }
}
