/// A man page (man(7) macros, section 1) for one command, from its `CommandHelp`: name and
/// abstract, synopsis, description, its subcommands (the root's page), every shown
/// argument with its default and values, and the other pages. Named `dropcut.1`,
/// `dropcut-render.1`...
struct ManualPage {
    let command: CommandHelp
    /// Printed in the page's footer: `dropcut 0.2.0`.
    let source: String
    /// The other pages' names, without section (`dropcut-render`), for SEE ALSO.
    let related: [String]

    /// `dropcut-render`.
    static func name(of command: CommandHelp) -> String { command.fullName.replacingOccurrences(of: " ", with: "-") }

    var fileName: String { Self.name(of: command) + ".1" }

    var text: String {
        let name = Self.name(of: command)
        var lines = [".TH \(Self.escape(name.uppercased())) 1 \"\" \"\(Self.escape(source))\" \"dropcut manual\"",
                     ".SH NAME", "\(Self.escape(name)) \\- \(Self.escape(command.abstract ?? command.fullName))",
                     ".SH SYNOPSIS", synopsis]
        if let discussion = command.discussion, !discussion.isEmpty {
            lines += [".SH DESCRIPTION"] + Self.paragraphs(discussion)
        }
        let subcommands = command.documentedSubcommands
        if !subcommands.isEmpty {
            lines.append(".SH COMMANDS")
            for subcommand in subcommands {
                lines += [".TP", "\\fB\(Self.escape(subcommand.commandName))\\fR", Self.escape(subcommand.abstract ?? ""),
                          "See \\fB\(Self.escape(Self.name(of: subcommand)))\\fR(1)."]
            }
        }
        let arguments = (command.arguments ?? []).filter(\.shouldDisplay)
        for (title, kinds) in [("ARGUMENTS", [CommandHelp.Argument.Kind.positional]), ("OPTIONS", [.option, .flag])] {
            let shown = arguments.filter { kinds.contains($0.kind) }
            guard !shown.isEmpty else { continue }
            lines.append(".SH \(title)")
            for argument in shown { lines += [".TP", Self.term(argument)] + Self.paragraphs(Self.explanation(argument)) }
        }
        if !related.isEmpty {
            lines += [".SH SEE ALSO", related.map { "\\fB\(Self.escape($0))\\fR(1)" }.joined(separator: ",\n")]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `.B dropcut render` and each shown argument, optional ones in brackets.
    private var synopsis: String {
        var parts = ["\\fB\(Self.escape(command.fullName))\\fR"]
        if !command.documentedSubcommands.isEmpty { parts.append("\\fIcommand\\fR") }
        for argument in (command.arguments ?? []).filter(\.shouldDisplay) {
            var part = Self.term(argument, separator: "|")
            if argument.isRepeating { part += " ..." }
            parts.append(argument.isOptional ? "[\(part)]" : part)
        }
        return parts.joined(separator: " ")
    }

    /// `\fB\-\-recipe\fR \fIrecipe\fR`, `\fB\-q\fR, \fB\-\-quiet\fR`, `\fIinputs\fR`.
    private static func term(_ argument: CommandHelp.Argument, separator: String = ", ") -> String {
        let value = "\\fI\(escape(argument.valueName ?? "value"))\\fR"
        guard argument.kind != .positional else { return value }
        let names = (argument.names ?? []).map { "\\fB\(escape($0.spelled))\\fR" }.joined(separator: separator)
        return argument.kind == .option ? names + " " + value : names
    }

    private static func explanation(_ argument: CommandHelp.Argument) -> String {
        var text = argument.abstract ?? ""
        if let discussion = argument.discussion, !discussion.isEmpty { text += "\n\n" + discussion }
        if let values = argument.allValues, !values.isEmpty, argument.kind == .option {
            text += " Values: " + values.joined(separator: ", ") + "."
        }
        if let value = argument.defaultValue, !value.isEmpty {
            // A flag's default is "false", or the choice of several flags given when none is (`-y`).
            if argument.kind != .flag { text += " Default: \(value)." } else if argument.names?.contains(where: { $0.spelled == value }) == true { text += " The default." }
        }
        return text
    }

    /// Text as paragraphs (`.PP` between), escaped.
    private static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map { paragraph in
            paragraph.split(separator: "\n", omittingEmptySubsequences: true).map { escape(String($0)) }.joined(separator: "\n")
        }.filter { !$0.isEmpty }.enumerated().flatMap { index, paragraph in index == 0 ? [paragraph] : [".PP", paragraph] }
    }

    /// roff-safe text: backslashes and hyphens escaped, a leading dot or quote made literal.
    static func escape(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
