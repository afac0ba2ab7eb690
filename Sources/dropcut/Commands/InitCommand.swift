import ArgumentParser
import Foundation

/// `dropcut init [DIR] [--force]`: starts a folder of dropcut's own — a commented daemon
/// config (`dropcut.yaml`, `DaemonConfigTemplate`) with one watched folder whose inbox it
/// makes, and a commented recipe (`recipe.yaml`, `RecipeTemplate`) — and says what to run
/// next. Files that exist are left as they are unless `--force`. `--print-config` prints
/// the config for `/etc/dropcut/dropcut.yaml` instead (for packaging; hidden).
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Write a commented daemon config and recipe into a folder, and say what to run next.",
        discussion: """
            Writes DIR/dropcut.yaml (a daemon config watching DIR/inbox, which it creates) and DIR/recipe.yaml. \
            Both validate as written. Files that exist are left as they are (an error) unless --force.
            """)

    static let configName = "dropcut.yaml", recipeName = "recipe.yaml", inboxName = "inbox"

    @Argument(help: "The folder to write into (made if missing).") var directory = "."
    @Flag(name: .long, help: "Replace dropcut.yaml and recipe.yaml if they exist.") var force = false
    @Flag(name: .long, help: .hidden) var printConfig = false

    func run() async throws {
        if printConfig {
            print(DaemonConfigTemplate.text(for: .system), terminator: "")
            return
        }
        let files = [(Self.configName, DaemonConfigTemplate.text(for: .folder(recipeFile: Self.recipeName))),
                     (Self.recipeName, RecipeTemplate.text)]
        let paths = files.map { (directory as NSString).appendingPathComponent($0.0) }
        do {
            if !force, let taken = paths.first(where: { RenderCommand.exists($0) }) {
                throw InitCommandError("\(taken) exists; left as it is (--force replaces it)")
            }
            try FileManager.default.createDirectory(atPath: (directory as NSString).appendingPathComponent(Self.inboxName),
                                                    withIntermediateDirectories: true)
            for ((_, text), path) in zip(files, paths) {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
        } catch let error as InitCommandError {
            printError("dropcut init: \(error)")
            throw ExitCode(1)
        } catch {
            printError("dropcut init: \(directory): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        let folder = directory == "." ? "" : (directory.hasSuffix("/") ? directory : directory + "/")
        let config = Self.shellWord(folder + Self.configName), recipe = Self.shellWord(folder + Self.recipeName)
        let inbox = Self.shellWord(folder + Self.inboxName + "/")
        let dropcut = Self.invokedAs(CommandLine.arguments.first)
        print("""
            wrote \(config) (the daemon's config, watching \(inbox)) and \(recipe) (its recipe)
            next:
              \(dropcut) render --recipe \(recipe) CLIP         # one clip, now
              \(dropcut) watch --config \(config) --check       # the config's folders, or its mistakes
              \(dropcut) watch --config \(config)               # then drop clips into \(inbox)
            """)
    }

    /// The command as it was invoked, so the next steps run where `init` ran: `dropcut`
    /// when found on the PATH, else the path it was called by (`.build/debug/dropcut`).
    static func invokedAs(_ argument: String?) -> String {
        guard let argument, argument.contains("/") else { return "dropcut" }
        return shellWord(argument)
    }

    /// `path` as one word a shell reads back as it is: in single quotes unless it is plain.
    static func shellWord(_ path: String) -> String {
        let plain = !path.isEmpty && path.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "/._-+,:@%".unicodeScalars.contains(scalar))
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Why `dropcut init` wrote nothing, naming the file.
struct InitCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
