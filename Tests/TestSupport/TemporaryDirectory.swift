import Foundation

/// A fresh, uniquely named directory under the system temporary directory, removed with
/// everything in it when the object is deinitialized.
///
/// Swift may end a local's lifetime after its last use, so keep the object alive while its
/// path is in use, e.g. `defer { withExtendedLifetime(dir) {} }` right after creating it.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates the directory as `<tmp>/<prefix>-<UUID>`.
    public init(prefix: String = "dropcut-test") throws {
        let base = FileManager.default.temporaryDirectory.path
        let path = (base as NSString).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        self.path = path
    }

    /// The path of `name` inside this directory (the file need not exist).
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
