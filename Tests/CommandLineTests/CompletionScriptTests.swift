import Foundation
import Testing
import TestSupport

/// `dropcut --generate-completion-script bash|zsh|fish` (swift-argument-parser's, from the
/// command definitions; what packaging installs): each names every shown subcommand and
/// render's options, and bash reads its script without a syntax error.
@Suite(.tags(.slow)) struct CompletionScriptTests {
    static let subcommands = ["render", "plan", "validate", "probe", "watch", "status", "retry", "init"]

    @Test(arguments: ["bash", "zsh", "fish"])
    func theScriptNamesEveryCommand(shell: String) async throws {
        let result = try await DropcutProcess.run(["--generate-completion-script", shell])
        try #require(result.status == 0, "\(result.stderr)")
        for command in Self.subcommands { #expect(result.stdout.contains(command), "\(shell): no \(command)") }
        for option in ["--progress", "--no-overwrite", "--quiet", "--recipe"] {
            // fish writes long options without their dashes (-l progress).
            #expect(result.stdout.contains(shell == "fish" ? String(option.dropFirst(2)) : option), "\(shell): no \(option)")
        }
        #expect(!result.stdout.contains("worker"), "\(shell): the hidden worker command is offered")
        let script = try Fixtures.makeFile(in: NSTemporaryDirectory(), name: "dropcut-completion-\(getpid()).\(shell)", contents: result.stdout)
        defer { try? FileManager.default.removeItem(atPath: script) }
        if let interpreter = Command.find(shell) {
            let check = try await Command.run(interpreter, ["-n", script])
            #expect(check.status == 0 && check.stderr.isEmpty, "\(shell) -n: \(check.stderr)")
        } else {
            #expect(shell != "bash", "bash is always there")
        }
    }
}
