import Foundation

/// The size of a file, in bytes, as `stat(2)` gives it (symlinks followed); a path that
/// cannot be read throws the `SystemError` naming it.
package enum FileSize {
    package static func bytes(at path: String) throws(SystemError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError.last("stat", path) }
        return Int64(info.st_size)
    }
}
