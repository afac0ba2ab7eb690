import ArgumentParser
import Foundation

/// A command as swift-argument-parser describes it in `--experimental-dump-help`
/// (its `ToolInfoV0` JSON, the part man pages need), read in-process from the command
/// definitions: the manual is generated from them, never written by hand.
struct CommandHelp: Decodable {
    var commandName: String
    var superCommands: [String]?
    var abstract: String?
    var discussion: String?
    var shouldDisplay: Bool?
    var subcommands: [CommandHelp]?
    var arguments: [Argument]?

    struct Argument: Decodable {
        enum Kind: String, Decodable { case positional, option, flag }
        struct Name: Decodable {
            var kind: String
            var name: String
            /// `-q`, `--quiet`, `-long`.
            var spelled: String { kind == "long" ? "--" + name : "-" + name }
        }
        var kind: Kind
        var shouldDisplay: Bool
        var isOptional: Bool
        var isRepeating: Bool
        var names: [Name]?
        var valueName: String?
        var defaultValue: String?
        var allValues: [String]?
        var abstract: String?
        var discussion: String?
    }

    private struct Dump: Decodable {
        var serializationVersion: Int
        var command: CommandHelp
    }

    /// The full name with its parents: `dropcut render`.
    var fullName: String { ((superCommands ?? []) + [commandName]).joined(separator: " ") }
    /// Shown in help (hidden commands, like `worker`, are not).
    var isShown: Bool { shouldDisplay ?? true }
    /// The subcommands that get a page: those shown, but ArgumentParser's own `help`
    /// (`dropcut help render` is `dropcut render --help`).
    var documentedSubcommands: [CommandHelp] { (subcommands ?? []).filter { $0.isShown && $0.commandName != "help" } }

    /// `command`'s tree, as `dropcut --experimental-dump-help` prints it.
    static func of<Command: ParsableCommand>(_ command: Command.Type) throws -> CommandHelp {
        let json: String
        do {
            _ = try command.parseAsRoot(["--experimental-dump-help"])
            throw CommandHelpError("swift-argument-parser printed no help for --experimental-dump-help")
        } catch let error as CommandHelpError {
            throw error
        } catch {
            json = command.fullMessage(for: error)
        }
        let dump: Dump
        do {
            dump = try JSONDecoder().decode(Dump.self, from: Data(json.utf8))
        } catch {
            throw CommandHelpError("cannot read swift-argument-parser's help JSON: \(error)")
        }
        guard dump.serializationVersion == 0 else {
            throw CommandHelpError("swift-argument-parser's help JSON is version \(dump.serializationVersion), not 0")
        }
        return dump.command
    }
}

/// Why the command definitions could not be read as help.
struct CommandHelpError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
