import ArgumentParser
import DropcutDaemon

/// `--config FILE`, shared by `watch` and `status`: the daemon's config, loaded and
/// validated; a bad one prints every problem at its file:line:column and exits 1.
struct DaemonConfigOption: ParsableArguments {
    @Option(name: .long, help: "The daemon's config file (dropcut init writes one).") var config: String = "/etc/dropcut/dropcut.yaml"

    func load(command: String) throws -> DaemonConfig {
        do {
            return try ConfigLoader.load(config)
        } catch {
            printError("dropcut \(command): bad config:\n\(error)")
            throw ExitCode(1)
        }
    }
}
