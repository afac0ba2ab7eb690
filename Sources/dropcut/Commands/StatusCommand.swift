import ArgumentParser
import DropcutDaemon
import Foundation

/// `dropcut status [--config FILE] [--json]`: the queue, running jobs with progress and
/// recent failures, read from the state folder (works while the daemon runs).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's queue, running jobs and recent failures.")
    @OptionGroup var options: DaemonConfigOption
    @Flag(name: .long, help: "Print JSON.") var json = false
    @Option(name: .long, help: "How many recent failures and finished jobs to list.") var recent = 10

    func validate() throws {
        guard (0...1000).contains(recent) else { throw ValidationError("--recent \(recent): give 0 to 1000") }
    }

    func run() async throws {
        let settings = try options.load(command: "status")
        let report = StatusReport(config: settings, recent: recent)
        print(json ? report.json() : report.text(), terminator: "")
    }
}
