import ArgumentParser
import DropcutDaemon

/// `--config FILE`, shared by `watch` and `status`: the daemon's config, loaded and
/// validated; a bad one prints every problem at its file:line:column and exits 78
/// (`ExitCode.badConfig`).
struct DaemonConfigOption: ParsableArguments {
    @Option(name: .long, help: "The daemon's config file (dropcut init writes one).") var config: String = "/etc/dropcut/dropcut.yaml"

    func load(command: String) throws -> DaemonConfig {
        do {
            return try ConfigLoader.load(config)
        } catch {
            printError("dropcut \(command): bad config:\n\(error)")
            throw ExitCode.badConfig
        }
    }
}

extension ExitCode {
    /// A config the loader rejects (a problem at its file:line:column, an inbox that cannot
    /// be reached): sysexits.h's EX_CONFIG. (An outbox or failed folder that is not usable,
    /// found after the config loads, exits 1 and is retried.) The units name it in
    /// `RestartPreventExitStatus=`, so a bad config fails the start once, clearly, instead
    /// of restarting until the start limit locks the unit (and the fixed config out).
    static let badConfig = ExitCode(78)
}
