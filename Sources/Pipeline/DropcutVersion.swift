/// dropcut's version: the one place it is set (bump it here for a release, tag the commit
/// with it and say what changed in CHANGELOG.md), in the lowest
/// module both the command line and the daemon import. `dropcut
/// --version`, `dropcut status --json` (the reader's and the running daemon's) and the
/// journal's "ready" line (DROPCUT_VERSION=) all read it from here, so after an upgrade
/// they show which binary is installed and which one is still running.
public enum DropcutVersion {
    public static let current = "0.2.0"

    /// The commit the binary was built from, written before each build by the build tool
    /// plugin `Plugins/BuildCommit`: the environment's `DROPCUT_COMMIT` when set (a build
    /// outside git), else git's commit (12 hex digits, `-dirty` after them for a tree with
    /// changes), else `unknown`.
    public static let commit = BuildCommit.value

    /// What `dropcut --version` prints: `0.2.0 (commit 95c9290121e7)`.
    public static var withCommit: String { "\(current) (commit \(commit))" }
}
