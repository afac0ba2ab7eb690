import Foundation

/// Reads a small text file that someone else may have written — a recipe, an inbox's
/// `recipe.yaml`, a sidecar, the daemon's config — without following a symlink out of
/// its folder, blocking on a FIFO, or reading a device or a huge file whole.
public enum TextFile {
    /// Recipes and configs are a few KB; anything larger is a mistake or an attack.
    public static let maximumSize = 256 * 1024

    /// Why a file could not be read.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case cannotOpen(String)
        case notARegularFile
        case tooLarge(Int)
        case notUTF8

        public var description: String {
            switch self {
            case let .cannotOpen(reason): return "cannot read the file: \(reason)"
            case .notARegularFile: return "is not a regular file (a symlink, folder, FIFO or device is never read)"
            case let .tooLarge(limit): return "is larger than \(limit / 1024) KiB"
            case .notUTF8: return "is not UTF-8 text"
            }
        }
    }

    /// The file's text: opened with `O_NONBLOCK` (a FIFO fails at once instead of waiting
    /// for a writer) and, unless `followSymlinks` (files an admin placed, like the config),
    /// `O_NOFOLLOW` (a symlink dropped into an inbox is refused); checked to be a regular
    /// file on the open descriptor; read up to `limit` bytes.
    public static func read(_ path: String, followSymlinks: Bool = false, limit: Int = maximumSize) throws(Failure) -> String {
        guard let text = String(validating: try bytes(path, followSymlinks: followSymlinks, limit: limit), as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    /// The file's bytes, read as `read` reads them, for a parser that checks the encoding
    /// itself (a subtitle file's errors name the line that is not UTF-8).
    public static func bytes(_ path: String, followSymlinks: Bool = false, limit: Int = maximumSize) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let code = errno
            // ELOOP: the last component is a symlink. ENXIO: a FIFO without a writer.
            if code == ELOOP || code == ENXIO { throw .notARegularFile }
            throw .cannotOpen(String(cString: strerror(code)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotOpen(String(cString: strerror(errno)))
            }
            if count == 0 { break }
            // Checked before appending, so at most `limit + chunk` bytes are ever held.
            guard bytes.count + count <= limit else { throw .tooLarge(limit) }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }
}
