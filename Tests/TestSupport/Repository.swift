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

/// Data from other projects beside the repository (`shared/<area>`, read in place, never
/// copied in): the path `name` in `shared/<area>` beside the repository (or one folder
/// further up, for a clone inside a work folder), else in the folder the environment
/// variable `variable` names, else in the machine's `/work/shared/<area>`; throws naming
/// every place looked in.
enum SharedData {
    static func find(_ name: String, in area: String, variable: String, directory: Bool) throws -> String {
        var tried: [String] = []
        var candidates = [Repository.path("../shared/\(area)"), Repository.path("../../shared/\(area)")]
        if let value = ProcessInfo.processInfo.environment[variable] { candidates.insert(value, at: 0) }
        candidates.append("/work/shared/\(area)")
        for base in candidates {
            let path = ((base as NSString).appendingPathComponent(name) as NSString).standardizingPath
            tried.append(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue == directory { return path }
        }
        throw ConformanceData.NotFound(description: "\(area) \(name) not found; looked in " + tried.joined(separator: ", "))
    }
}

/// Other projects' conformance data (`shared/conformance`): the folder `name` in it
/// (`DROPCUT_CONFORMANCE` may name another place).
public enum ConformanceData {
    public static func folder(_ name: String) throws -> String {
        try SharedData.find(name, in: "conformance", variable: "DROPCUT_CONFORMANCE", directory: true)
    }

    public struct NotFound: Error, CustomStringConvertible {
        public var description: String
    }
}

/// Real recordings from other projects (`shared/corpus/media`): phones' rotated,
/// full-range, variable-rate clips as they were recorded — the file `name` in it
/// (`DROPCUT_CORPUS` may name another corpus folder).
public enum CorpusMedia {
    public static func file(_ name: String) throws -> String {
        try SharedData.find("media/\(name)", in: "corpus", variable: "DROPCUT_CORPUS", directory: false)
    }
}
