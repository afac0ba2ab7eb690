import Foundation

/// The build products directory the running test binary lives in, where SwiftPM also puts
/// the package's executables (e.g. `.build/debug/dropcut` next to
/// `.build/debug/dropcutPackageTests.xctest`).
public enum BuildProducts {
    /// The path of the built executable `name`. Looks next to the running test binary
    /// (found through `/proc/self/exe`, `CommandLine.arguments[0]` and `Bundle.main`) and
    /// up to three directories above it (macOS nests binaries inside the `.xctest` bundle).
    /// Throws a `BuildProducts.NotFound` listing every place it looked.
    public static func executable(named name: String) throws -> String {
        var tried: [String] = []
        for start in startDirectories() {
            var directory = URL(fileURLWithPath: start).standardizedFileURL
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name).path
                if !tried.contains(candidate) {
                    tried.append(candidate)
                    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                }
                directory.deleteLastPathComponent()
            }
        }
        throw NotFound(name: name, tried: tried)
    }

    /// No built executable with that name next to the test binary.
    public struct NotFound: Error, CustomStringConvertible {
        public let name: String
        public let tried: [String]
        public var description: String {
            "built executable '\(name)' not found next to the test binary; is it a dependency of this test target? tried:\n"
                + tried.joined(separator: "\n")
        }
    }

    private static func startDirectories() -> [String] {
        var directories: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append((exe as NSString).deletingLastPathComponent)
        }
        if let argument = CommandLine.arguments.first, argument.contains("/") {
            let absolute = argument.hasPrefix("/") ? argument
                : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(argument)
            directories.append((absolute as NSString).deletingLastPathComponent)
        }
        directories.append(Bundle.main.bundleURL.path)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent().path)
        return directories
    }
}
