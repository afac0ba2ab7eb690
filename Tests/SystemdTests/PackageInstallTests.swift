import Foundation
import Testing
import TestSupport

/// The Debian package as an admin meets it: `scripts/package` builds it (lintian must
/// report no error) from the test build's objects linked with the Swift runtime inside
/// (`scripts/link-static-debug`), and `scripts/check-package` installs it with `apt-get`
/// on a clean Debian 12 root (debootstrap minbase, no Swift toolchain) booted by
/// systemd-nspawn: enable, render a dropped clip, the journal, `dropcut status`, the
/// service's sandbox, watchdog and reload (a config it would reject fails the reload; a
/// bad config fails the start once, and the fixed one starts without `reset-failed`), a
/// second instance, an upgrade that keeps the
/// edited config and the job records, remove that keeps them, purge that does not; and,
/// powered off, install, upgrade and purge in a plain chroot (no /proc, no systemd).
@Suite(.tags(.slow)) struct PackageInstallTests {
    @Test func theDebianPackageInstallsRunsUpgradesAndRemovesOnACleanDebian() async throws {
        // scripts/package (lintian errors fail it) from the test build with the runtime inside.
        let deb = try await InstalledRoot.package()
        // The package carries the version the binary prints.
        let binary = try await InstalledRoot.packagedBinary()
        let printed = try await Command.run(binary, ["--version"])
        let version = try #require(printed.stdout.split(separator: " ").first.map(String.init))
        #expect(deb.hasSuffix("/dropcut_\(version)_\(try await Self.architecture()).deb"), "\(deb)")

        let checked = try await Command.run(Repository.path("scripts/check-package"), [deb])
        print(checked.stdout)
        #expect(checked.status == 0, "stderr:\n\(checked.stderr)")
        #expect(checked.stdout.contains("check-package: all checks passed"))
        #expect(!checked.stdout.contains("FAILED"))
        #expect(checked.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 27, "\(checked.stdout)")
    }

    static func architecture() async throws -> String {
        try await Command.runChecked("dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
