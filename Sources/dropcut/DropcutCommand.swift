import ArgumentParser
import DropcutPipeline
import DropcutRecipe
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
        if let word = unknownCommand(Array(CommandLine.arguments.dropFirst())) {
            let hint = RecipeReader.suggestion(for: word, among: commandNames).map { "; did you mean '\($0)'?" } ?? ""
            let line = "Error: '\(word)' is not a dropcut command\(hint)\nSee 'dropcut --help' for the commands.\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            Glibc.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }

    /// The commands' names, and `help`.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// The first argument when it is meant as a command and names none (`dropcut rendr
    /// clip.mov`): what the parser would call "2 unexpected arguments". Nil for an option
    /// (`--version`) or a known command.
    static func unknownCommand(_ arguments: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), !commandNames.contains(word) else { return nil }
        return word
    }
}
