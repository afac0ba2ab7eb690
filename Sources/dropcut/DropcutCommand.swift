import ArgumentParser
import DropcutPipeline

/// `dropcut`: the command-line face of the engine and the daemon (docs/features.md lists the commands).
@main
struct DropcutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dropcut",
        abstract: "Turn a folder into a video-editing robot: render phone clips through recipes.",
        version: DropcutVersion.withCommit,
        subcommands: [
            RenderCommand.self, PlanCommand.self, ValidateCommand.self,
            ProbeCommand.self, WatchCommand.self, StatusCommand.self, RetryCommand.self, InitCommand.self,
            WorkerCommand.self, ManualCommand.self,
        ]
    )

    /// Sets the process's malloc policy (`MallocPolicy`), then parses and runs the command.
    static func main() async {
        MallocPolicy.apply()
        await main(nil)
    }
}
