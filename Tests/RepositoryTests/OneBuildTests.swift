import Foundation
import Testing
import TestSupport

/// One release build: the README's quick start builds exactly what `scripts/dropcut-binary`
/// builds (flags, product, folder), and every script that needs the release binary asks
/// `scripts/dropcut-binary` for it (scripts/install through scripts/package), so a newcomer who runs the demo and then the quick
/// start builds once. (A second set of flags — the quick start without
/// `--static-swift-stdlib` — rebuilt everything for 10 minutes.)
struct OneBuildTests {
    /// The `swift build ... --product dropcut` command lines of a text, flags in order.
    static func releaseBuilds(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: #/swift build (-c release[^>\n]*--product dropcut)/#) else { return nil }
            return String(match.output.1).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func theQuickStartBuildsWhatTheScriptsBuild() throws {
        let script = try String(contentsOfFile: Repository.path("scripts/dropcut-binary"), encoding: .utf8)
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let scripted = Self.releaseBuilds(in: script)
        #expect(scripted == ["-c release --static-swift-stdlib --product dropcut"], "\(scripted)")
        let documented = Self.releaseBuilds(in: readme)
        #expect(!documented.isEmpty && documented.allSatisfy { $0 == scripted.first }, "README builds \(documented), the scripts \(scripted)")
        // No other way to build the release binary in the README (`swift build -c release` alone).
        #expect(!readme.contains("swift build -c release\n"), "README.md has a release build without the scripts' flags")
    }

    /// Each script and where it takes the binary from: scripts/dropcut-binary, or
    /// scripts/package (which takes it from there).
    @Test(arguments: [("scripts/demo", "scripts/dropcut-binary"), ("scripts/package", "scripts/dropcut-binary"),
                      ("scripts/bench", "scripts/dropcut-binary"), ("scripts/install", "scripts/package")])
    func theScriptAsksForTheOneBuild(script: String, source: String) throws {
        let text = try String(contentsOfFile: Repository.path(script), encoding: .utf8)
        #expect(text.contains("$(\(source))"), "\(script) does not take the binary from \(source)")
        #expect(Self.releaseBuilds(in: text).isEmpty, "\(script) builds dropcut itself: \(Self.releaseBuilds(in: text))")
    }
}
