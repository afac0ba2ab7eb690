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

/// Other projects' conformance data (`shared/conformance` beside the repository, read in
/// place, never copied in): the folder `name` in it.
public enum ConformanceData {
    /// `shared/conformance/<name>` beside the repository (or one folder further up, for a
    /// clone inside a work folder), else `DROPCUT_CONFORMANCE/<name>`, else the machine's
    /// `/work/shared/conformance/<name>`; throws naming every place looked in.
    public static func folder(_ name: String) throws -> String {
        var tried: [String] = []
        var candidates = [Repository.path("../shared/conformance"), Repository.path("../../shared/conformance")]
        if let variable = ProcessInfo.processInfo.environment["DROPCUT_CONFORMANCE"] { candidates.insert(variable, at: 0) }
        candidates.append("/work/shared/conformance")
        for base in candidates {
            let path = ((base as NSString).appendingPathComponent(name) as NSString).standardizingPath
            tried.append(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return path }
        }
        throw NotFound(description: "conformance data \(name) not found; looked in " + tried.joined(separator: ", "))
    }

    public struct NotFound: Error, CustomStringConvertible {
        public var description: String
    }
}
