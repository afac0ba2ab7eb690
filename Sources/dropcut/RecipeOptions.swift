import ArgumentParser
import DropcutRecipe

/// The options `render` and `plan` share: which recipe, where its assets may come from,
/// and the clips.
struct RecipeOptions: ParsableArguments {
    @Option(name: .long, help: "Recipe YAML file (default: the identity recipe: upright, the source's size and rate; a stream needing no change is copied, not re-encoded).")
    var recipe: String?
    @Option(name: .long, help: "Directory that recipe assets may come from (repeatable).")
    var assets: [String] = []
    @Argument(help: "Input clips.")
    var inputs: [String]

    /// The recipe, or the identity recipe; bad recipes print every error and exit 1.
    func loadRecipe(command: String) throws -> Recipe {
        guard let file = recipe else { return Recipe(name: "identity") }
        do {
            return try RecipeLoader(resolver: AssetResolver(assetDirectories: assets)).load([file])
        } catch {
            for diagnostic in error.diagnostics { printError(diagnostic.description) }
            throw ExitCode(1)
        }
    }
}
