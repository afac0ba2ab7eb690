import Foundation

/// The repository the tests run from: its scripts, recipes and `systemd/` files.
public enum Repository {
    /// The repository's root folder (this file is `Tests/TestSupport/Repository.swift`).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `relative` inside the repository.
    public static func path(_ relative: String) -> String {
        (root as NSString).appendingPathComponent(relative)
    }
}
