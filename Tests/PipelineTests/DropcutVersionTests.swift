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
        ("0.2.0", "-41-g06b5619abcde", false, "0.2.0~41.g06b5619abcde"),
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

    /// Over a real history of 32 commits in a repository of its own — main's history
    /// carries no release tag, then 0.2.0 is tagged at the 20th — every build's version, as
    /// `scripts/build-commit` (what the build plugin runs) describes it, orders after the
    /// one before in dpkg's order, whatever the hashes: the commits are counted.
    @Test func dpkgOrdersEveryBuildOfARealHistory() async throws {
        let dir = try TemporaryDirectory()
        let repository = dir.file("repository"), out = dir.file("out")
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)
        func git(_ arguments: [String]) async throws {
            try await Command.runChecked("git", ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                                                 "-c", "commit.gpgsign=false"] + arguments)
        }
        try await git(["init", "-q"])
        var versions: [String] = []
        for k in 1...32 {
            try "\(k)\n".write(toFile: repository + "/file", atomically: true, encoding: .utf8)
            try await git(["add", "file"])
            try await git(["commit", "-q", "-m", "commit \(k)"])
            if k == 20 { try await git(["tag", "0.2.0"]) }
            try await Command.runChecked("/bin/sh", [Repository.path("scripts/build-commit"), out, repository, ""])
            let generated = try String(contentsOfFile: out + "/BuildCommit.swift", encoding: .utf8)
            let describe = try #require(generated.firstMatch(of: #/describe = "([^"]*)"/#).map { String($0.1) })
            versions.append(DropcutVersion.version(release: k <= 20 ? "0.2.0" : "0.3.0", describe: describe, dirty: false))
        }
        #expect(versions[0].hasPrefix("0.2.0~1.g") && versions[18].hasPrefix("0.2.0~19.g") && versions[19] == "0.2.0"
                && versions[20].hasPrefix("0.3.0~1.g"), "\(versions)")
        // One dpkg run for the 31 comparisons.
        let pairs = zip(versions, versions.dropFirst()).map { "dpkg --compare-versions '\($0)' lt '\($1)' || echo '\($0) \($1)'" }
        let unordered = try await Command.runChecked("/bin/sh", ["-c", pairs.joined(separator: "\n")])
        #expect(unordered.isEmpty, "not in order: \(unordered)")
    }
}
