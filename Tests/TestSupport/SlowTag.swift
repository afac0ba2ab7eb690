// TestSupport is a plain target (test targets depend on it), so `swift build -c release`
// builds it too, where Swift Testing is not available: the tag exists only where
// Testing does (scripts/dropcut-binary's release build failed on it otherwise).
#if canImport(Testing)
import Testing

extension Tag {
    /// A suite that runs the dropcut binary or the daemon, mounts sshfs, starts systemd in
    /// a container, races processes or renders full-HD clips. `scripts/test` (CI) runs
    /// it; `scripts/test --fast`, the edit–test loop, skips every suite with this tag. The
    /// tag goes on the `@Suite(...)` line of the suite's declaration, where the script
    /// finds it (a test checks that it does).
    @Tag public static var slow: Self
}
#endif
