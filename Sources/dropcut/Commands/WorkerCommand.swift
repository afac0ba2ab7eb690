import ArgumentParser
import DropcutDaemon
import Logging

/// `dropcut worker`: one job's render, in a process of its own, run by `dropcut watch`
/// (never by hand; hidden from help). See `RenderWorker`.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Render one job for the daemon (internal).", shouldDisplay: false)

    func run() async throws {
        let logger = Logger(label: "dropcut") { _ in JournalLogHandler() }
        let status = await RenderWorker.run(logger: logger)
        if status != 0 { throw ExitCode(status) }
    }
}
