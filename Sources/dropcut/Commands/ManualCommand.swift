import ArgumentParser
import DropcutPipeline
import Foundation

/// `dropcut manual --output DIR` (hidden; for packaging): writes a man page per command —
/// `dropcut.1`, `dropcut-render.1`... — generated from the command definitions
/// (`CommandHelp`, `ManualPage`), never written by hand.
struct ManualCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual", abstract: "Write a man page per command into a folder (for packaging).", shouldDisplay: false)

    @Option(name: .long, help: "The folder to write the pages into (made if missing).") var output: String

    func run() async throws {
        do {
            let root = try CommandHelp.of(DropcutCommand.self)
            let commands = [root] + root.documentedSubcommands
            let names = commands.map(ManualPage.name(of:))
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for command in commands {
                let page = ManualPage(command: command, source: "dropcut \(DropcutVersion.current)",
                                      related: names.filter { $0 != ManualPage.name(of: command) })
                let path = (output as NSString).appendingPathComponent(page.fileName)
                do {
                    try Data(page.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw CommandHelpError("\(path): cannot write: \(error.localizedDescription)")
                }
                print(path)
            }
        } catch {
            printError("dropcut manual: \(error)")
            throw ExitCode(1)
        }
    }
}
