import ArgumentParser
import DropcutPipeline
#if canImport(Glibc)
import Glibc
#endif

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

    /// Sets the process's malloc policy (`MallocPolicy`) and ignores SIGPIPE (a reader of
    /// the progress that goes away, `dropcut render --progress json … | head -1`, ends
    /// the progress, not the render: writes to it fail with EPIPE and are dropped, and
    /// the render finishes and publishes), then parses and runs the command.
    static func main() async {
        MallocPolicy.apply()
        signal(SIGPIPE, SIG_IGN)
        await main(nil)
    }
}
