import ArgumentParser
import DropcutDaemon

/// `dropcut retry [--config FILE] FOLDER NAME`: puts a failed clip (and its sidecars) back
/// in its folder's inbox to be rendered again, as the status page's Retry button does.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Move a failed clip and its sidecars back into its inbox, to be rendered again.")
    @OptionGroup var options: DaemonConfigOption
    @Argument(help: "The folder's name in the config.") var folder: String
    @Argument(help: "The clip's name in the folder's failed folder, as dropcut shows it (caf\\xE9.mov for a name that is not UTF-8), or its own bytes.")
    var name: String

    func run() async throws {
        let settings = try options.load(command: "retry")
        do {
            let moved = try FailedClipRetry.retry(name, folder: folder, config: settings)
            for path in moved { print("moved back: \(path)") }
        } catch {
            printError("dropcut retry: \(error)")
            throw ExitCode(1)
        }
    }
}
