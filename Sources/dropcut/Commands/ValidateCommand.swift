import ArgumentParser
import DropcutRecipe

/// `dropcut validate RECIPE...`: checks recipe files without rendering anything.
/// Prints every problem as `file:line:col: message` on standard error; exit 0 when all
/// files are valid, 1 otherwise.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check recipe files; print every error as file:line:col: message.")

    @Option(name: .long, help: "Directory that recipe assets may come from (repeatable).") var assets: [String] = []
    @Argument(help: "Recipe YAML files.") var recipes: [String]

    func run() async throws {
        // FFmpeg's own lines never come before dropcut's message (which has its detail line).
        _ = EngineMessages(verbose: false, quiet: false).install()
        let loader = RecipeLoader(resolver: AssetResolver(assetDirectories: assets))
        var failed = false
        for file in recipes {
            do {
                _ = try loader.load([file])
                print("\(file): ok")
            } catch {
                failed = true
                for diagnostic in error.diagnostics { printError(diagnostic.description) }
            }
        }
        if failed { throw ExitCode(1) }
    }
}
