/// dropcut's version: the release is set in one place (`release`: bump it for a release,
/// tag the commit with it and say what changed in CHANGELOG.md), in the lowest module both
/// the command line and the daemon import. `dropcut --version`, the Debian package's
/// version (scripts/package), `dropcut status --json` (the reader's and the running
/// daemon's) and the journal's "ready" line (DROPCUT_VERSION=) all show `current`, so
/// after an upgrade they say which binary is installed and which one is still running.
public enum DropcutVersion {
    /// The release this source is, or is on its way to.
    public static let release = "0.2.0"

    /// This build's version: `release` when built at its tag; otherwise it says how far
    /// the build is from it (`version(release:describe:dirty:)`), in a form Debian's
    /// version ordering sorts right.
    public static let current = version(release: release, describe: BuildCommit.describe,
                                        dirty: BuildCommit.value.hasSuffix("-dirty"))

    /// The commit the binary was built from, written before each build by the build tool
    /// plugin `Plugins/BuildCommit`: the environment's `DROPCUT_COMMIT` when set (a build
    /// outside git), else git's commit (12 hex digits, `-dirty` after them for a tree with
    /// changes), else `unknown`.
    public static let commit = BuildCommit.value

    /// What `dropcut --version` prints: `0.2.0 (commit 95c9290121e7)`.
    public static var withCommit: String { "\(current) (commit \(commit))" }

    /// The version of a build of `release` whose `git describe --tags --long` says
    /// `describe` (`TAG-N-gHASH`, or empty outside git):
    /// - at the release's own tag: `0.2.0`;
    /// - N commits after it: `0.2.0+N.gHASH` (after 0.2.0, before anything later);
    /// - N commits after an earlier tag (the release not tagged yet): `0.2.0~N.gHASH`
    ///   (`~` sorts before the release itself in dpkg's order, and N grows along history);
    /// - a clone without the release tags (described as `-N-gHASH`, N the commits in its
    ///   history: `scripts/build-commit`): `0.2.0~N.gHASH`, not the release, and each
    ///   build of main after the one before it in dpkg's order;
    /// - no description (a tarball, no git): `0.2.0`;
    /// and `.dirty` after that (`+0.dirty` after a bare release: after the release, before
    /// the commit after it) for a tree with changes.
    package static func version(release: String, describe: String, dirty: Bool) -> String {
        var parts = describe.split(separator: "-", omittingEmptySubsequences: false)
        var version = release
        if parts.count >= 3, let hash = parts.popLast(), hash.first == "g", hash.count > 1,
           hash.dropFirst().allSatisfy(\.isHexDigit), let distance = parts.popLast().flatMap({ Int($0) }), distance >= 0 {
            let tag = parts.joined(separator: "-")
            if tag != release {
                version += "~\(distance).\(hash)"
            } else if distance > 0 {
                version += "+\(distance).\(hash)"
            }
        }
        if dirty { version += version == release ? "+0.dirty" : ".dirty" }
        return version
    }
}
