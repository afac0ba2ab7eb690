import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into DropcutPipeline before every build: the commit
/// `dropcut --version` shows (`DropcutVersion.commit`) and where it stands from the last
/// release tag (`git describe --tags --long`, from which `DropcutVersion.current` is
/// made). The commit: the environment's `DROPCUT_COMMIT` when set (a build outside git: a
/// tarball); else git's, 12 hex digits, `-dirty` after them for a tree with changes; else
/// `unknown` (no git, or not a clone). The description is empty outside git; in a clone
/// without release tags it counts the commits in the history. `scripts/build-commit` does it.
/// The file is rewritten only when its text changes, so an unchanged commit recompiles
/// nothing.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        // The work is scripts/build-commit's, which tests run on a repository of their own.
        let script = context.package.directoryURL.appendingPathComponent("scripts/build-commit").path
        return [.prebuildCommand(displayName: "dropcut's build commit", executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [script, output.path, context.package.directoryURL.path,
                                             ProcessInfo.processInfo.environment["DROPCUT_COMMIT"] ?? ""],
                                 outputFilesDirectory: output)]
    }
}
