import Foundation
import Testing
import TestSupport

/// `dropcut manual --output DIR` (what packaging runs): a man page per command, generated
/// from the command definitions — the commands and options are read here from
/// swift-argument-parser's own `--experimental-dump-help`, not from a list kept by hand —
/// that groff renders without a warning.
@Suite(.tags(.slow)) struct ManualPageTests {
    /// The shown subcommands and, by subcommand, its shown option names, from the dump.
    static func definitions() async throws -> [String: [String]] {
        let dump = try await DropcutProcess.run(["--experimental-dump-help"])
        try #require(dump.status == 0, "\(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        var options: [String: [String]] = [:]
        for sub in command["subcommands"] as? [[String: Any]] ?? [] where sub["shouldDisplay"] as? Bool != false {
            let name = try #require(sub["commandName"] as? String)
            guard name != "help" else { continue }
            options[name] = (sub["arguments"] as? [[String: Any]] ?? []).filter { $0["shouldDisplay"] as? Bool != false }
                .flatMap { ($0["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        }
        return options
    }

    @Test func everyCommandGetsAPageThatGroffRendersCleanly() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-manual")
        defer { withExtendedLifetime(dir) {} }
        let definitions = try await Self.definitions()
        #expect(definitions.keys.contains("render") && definitions.keys.contains("init") && !definitions.keys.contains("worker"),
                "\(definitions.keys.sorted())")

        let result = try await DropcutProcess.run(["manual", "--output", dir.path])

        try #require(result.status == 0, "\(result.stderr)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(pages == (["dropcut.1"] + definitions.keys.map { "dropcut-\($0).1" }).sorted())
        for page in pages {
            // -ww: every warning; -z: no output, only the diagnostics.
            let groff = try await Command.run("groff", ["-man", "-Tutf8", "-ww", "-z", dir.file(page)])
            #expect(groff.status == 0 && groff.stderr.isEmpty, "\(page): \(groff.stderr)")
            let text = try await Command.run("groff", ["-man", "-Tascii", "-P-c", "-P-b", "-P-u", dir.file(page)])
            #expect(text.stdout.contains("NAME") && text.stdout.contains("SYNOPSIS"), "\(page)")
        }
        // Every option of every command is on its page, as roff writes a hyphen (\-).
        for (command, names) in definitions {
            let page = try String(contentsOfFile: dir.file("dropcut-\(command).1"), encoding: .utf8)
            for name in names {
                let spelled = (name.count == 1 ? "\\-" : "\\-\\-") + name.replacingOccurrences(of: "-", with: "\\-")
                #expect(page.contains("\\fB\(spelled)\\fR"), "dropcut-\(command).1 lacks \(name)")
            }
        }
        let render = try String(contentsOfFile: dir.file("dropcut-render.1"), encoding: .utf8)
        for option in ["progress", "quiet", "no\\-overwrite", "overwrite", "output", "recipe", "verbose"] {
            #expect(render.contains("\\-\\-\(option)"), "render's page lacks --\(option)")
        }
        let root = try String(contentsOfFile: dir.file("dropcut.1"), encoding: .utf8)
        for command in definitions.keys { #expect(root.contains("dropcut\\-\(command)\\fR(1)"), "dropcut.1 does not point to \(command)") }
    }
}
