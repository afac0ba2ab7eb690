/// dropcut's version: the one place it is set (bump it here for a release, tag the commit
/// with it and say what changed in CHANGELOG.md), in the lowest
/// module both the command line and the daemon import. `dropcut
/// --version`, `dropcut status --json` (the reader's and the running daemon's) and the
/// journal's "ready" line (DROPCUT_VERSION=) all read it from here, so after an upgrade
/// they show which binary is installed and which one is still running.
public enum DropcutVersion {
    public static let current = "0.2.0"
}
