import ArgumentParser

/// Subcommands whose engine has not landed yet say so and exit 1, so scripts never
/// mistake them for success.
protocol NotYetImplemented: AsyncParsableCommand {}

extension NotYetImplemented {
    func run() async throws {
        printError("dropcut \(Self.configuration.commandName ?? "?"): not implemented yet")
        throw ExitCode(1)
    }
}
