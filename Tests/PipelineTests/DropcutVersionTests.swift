import Foundation
import Testing
@testable import DropcutPipeline
import TestSupport

/// `DropcutVersion.version(release:describe:dirty:)`: the build's version from `git
/// describe`, which the Debian package carries, so dpkg must order it along history.
struct DropcutVersionTests {
    @Test(arguments: [
        ("0.2.0", "0.2.0-0-g06b5619abcde", false, "0.2.0"),
        ("0.2.0", "0.2.0-3-g06b5619abcde", false, "0.2.0+3.g06b5619abcde"),
        ("0.2.0", "0.1.0-61-g06b5619abcde", false, "0.2.0~61.g06b5619abcde"),
        ("0.2.0", "0.1.0-61-g06b5619abcde", true, "0.2.0~61.g06b5619abcde.dirty"),
        ("0.2.0", "0.2.0-0-g06b5619abcde", true, "0.2.0+0.dirty"),
        ("0.2.0", "", false, "0.2.0"),
        ("0.2.0", "-0-g06b5619abcde", false, "0.2.0~0.g06b5619abcde"),
        ("0.2.0", "", true, "0.2.0+0.dirty"),
        // Not a description: the release as it is.
        ("0.2.0", "06b5619abcde", false, "0.2.0"),
        ("0.2.0", "0.2.0-x-g06b5619abcde", false, "0.2.0"),
        ("0.2.0", "0.2.0-3-06b5619abcde", false, "0.2.0"),
        ("0.2.0", "0.2.0-3-gxyz", false, "0.2.0"),
        ("0.2.0", "0.2.0-1-g", false, "0.2.0"),
        ("0.2.0", "0.2.0-1-", false, "0.2.0"),
    ])
    func versionFromTheDescription(release: String, describe: String, dirty: Bool, expected: String) {
        #expect(DropcutVersion.version(release: release, describe: describe, dirty: dirty) == expected)
    }

    /// dpkg itself orders the versions of successive builds as history does: commits
    /// before the release is tagged, the release, commits after it, the next release's.
    @Test func dpkgOrdersBuildsAlongHistory() async throws {
        let history = [
            DropcutVersion.version(release: "0.1.0", describe: "0.1.0-0-gaaaaaaaaaaaa", dirty: false),
            DropcutVersion.version(release: "0.2.0", describe: "0.1.0-9-gffffffffffff", dirty: false),
            DropcutVersion.version(release: "0.2.0", describe: "0.1.0-10-g000000000000", dirty: false),
            DropcutVersion.version(release: "0.2.0", describe: "0.1.0-10-g000000000000", dirty: true),
            DropcutVersion.version(release: "0.2.0", describe: "0.2.0-0-gbbbbbbbbbbbb", dirty: false),
            DropcutVersion.version(release: "0.2.0", describe: "0.2.0-0-gbbbbbbbbbbbb", dirty: true),
            DropcutVersion.version(release: "0.2.0", describe: "0.2.0-1-gcccccccccccc", dirty: false),
            DropcutVersion.version(release: "0.2.0", describe: "0.2.0-12-g111111111111", dirty: false),
            DropcutVersion.version(release: "0.3.0", describe: "0.2.0-13-g222222222222", dirty: false),
            DropcutVersion.version(release: "0.3.0", describe: "0.3.0-0-g333333333333", dirty: false),
        ]
        #expect(Set(history).count == history.count, "\(history)")
        for (earlier, later) in zip(history, history.dropFirst()) {
            let result = try await Command.run("dpkg", ["--compare-versions", earlier, "lt", later])
            #expect(result.status == 0, "dpkg does not order \(earlier) before \(later)")
        }
    }

    /// This build's own version is made from its description the same way.
    @Test func theBuildsVersionIsTheReleaseOrSaysHowFarFromIt() {
        #expect(DropcutVersion.release.split(separator: ".").count == 3
                && DropcutVersion.release.split(separator: ".").allSatisfy { Int($0) != nil }, "\(DropcutVersion.release)")
        #expect(DropcutVersion.current.hasPrefix(DropcutVersion.release), "\(DropcutVersion.current)")
        #expect(DropcutVersion.current.wholeMatch(of: #/[0-9][0-9A-Za-z.+~]*/#) != nil, "\(DropcutVersion.current)")
    }
}
