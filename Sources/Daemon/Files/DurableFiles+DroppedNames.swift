import Foundation
import DropcutPipeline
import DropcutSupport

/// Moves that give a claimed file back the name it was dropped with: a clip whose name is
/// not UTF-8 (or holds control characters or backslashes) is worked on under its printable
/// form (`RawFileName`), and goes to the archive or failed/ under its own bytes, so the
/// person who dropped `café.mov` from a Latin-1 client finds it there as they named it.
///
/// The same steps and crash-safety as `DurableFiles.move`: the file is complete under
/// `.<printable>.moving-<tag>` before it gets a visible name, which is linked (never
/// overwriting: `-1`, `-2`...) before the temporary one is removed. A crash at any point
/// leaves the file under one of its names, and `finishMoves(in:tag:names:dropped:)` puts it
/// under its dropped name at the next start.
extension DurableFiles {
    /// Moves `source` into `directory` under `dropped` (or `dropped-1`...), or under `name`
    /// when there is no dropped name, it is `name` itself, or the filesystem refuses those
    /// bytes (UTF-8-only mounts). Returns the final name.
    @discardableResult
    static func move(_ source: String, into directory: String, name: String, dropped: RawFileName?, tag: String,
                     mode: mode_t? = nil, group: gid_t? = nil) throws(SystemError) -> RawFileName {
        guard let dropped, dropped.bytes != Array(name.utf8) else {
            let final = try move(source, into: directory, name: name, tag: tag, mode: mode, group: group)
            return RawFileName(bytes: (final as NSString).lastPathComponent.utf8)
        }
        return try move(source, into: directory, name: name, tag: tag, mode: mode, group: group) { hidden throws(SystemError) in
            try linkUnique(hidden, into: directory, dropped: dropped, name: name, tag: tag)
        }
    }

    /// Puts in place what a crash left mid-move with this `tag`: files of `dropped` (by
    /// claimed name) under their dropped names, then the rest as `finishMoves(in:tag:names:)`.
    static func finishMoves(in directory: String, tag: String, names: [String],
                            dropped: [String: RawFileName]) throws(SystemError) {
        for name in names {
            guard let original = dropped[name], original.bytes != Array(name.utf8) else { continue }
            let hidden = (directory as NSString).appendingPathComponent(temporaryName(name, "moving", tag: tag))
            var info = stat()
            if lstat(hidden, &info) == 0 { try linkUnique(hidden, into: directory, dropped: original, name: name, tag: tag) }
        }
        try finishMoves(in: directory, tag: tag, names: names)
    }

    /// Gives `source` the first free name among `dropped`, `dropped-1`... in `directory` (on
    /// its filesystem), never replacing a file (`publishExclusively`), then fsyncs the
    /// folder. A name already linked to `source` (before a crash) is taken as done. Where
    /// the filesystem refuses the bytes, the printable `name` is used instead.
    @discardableResult
    static func linkUnique(_ source: String, into directory: String, dropped: RawFileName,
                           name: String, tag: String?) throws(SystemError) -> RawFileName {
        for n in 0..<10_000 {
            let candidate = numbered(dropped, n)
            let published: Bool
            do {
                published = try publishExclusively(source, as: candidate.path(in: directory), tag: tag)
            } catch where [EILSEQ, EINVAL, ENAMETOOLONG].contains(error.errno) {
                // A filesystem that takes UTF-8 names only (some SMB, NTFS or ZFS utf8only
                // mounts): the printable name, which every filesystem takes.
                let final = try linkUnique(source, into: directory, name: name, tag: tag)
                return RawFileName(bytes: (final as NSString).lastPathComponent.utf8)
            } catch {
                throw SystemError(errno: error.errno, function: error.function,
                                  path: (directory as NSString).appendingPathComponent(candidate.printable))
            }
            if published {
                try sync(directory)
                return candidate
            }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)",
                          path: (directory as NSString).appendingPathComponent(dropped.printable))
    }

    /// `name` with `-1`, `-2`... before its extension, byte-wise (`numbered(_:_:)` for names
    /// that may not be UTF-8), the stem cut where the number would pass NAME_MAX.
    static func numbered(_ name: RawFileName, _ n: Int) -> RawFileName {
        guard n > 0 else { return name }
        let bytes = name.bytes
        let dot = bytes.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 && $0 < bytes.count - 1 ? $0 : nil }
        let stem = dot.map { bytes[..<$0] } ?? bytes[...]
        let tail = Array("-\(n)".utf8) + (dot.map { Array(bytes[$0...]) } ?? [])
        return RawFileName(bytes: Array(stem.prefix(max(0, FileName.maximumBytes - tail.count))) + tail)
    }
}
