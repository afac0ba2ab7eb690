import Foundation
import DropcutSupport

/// Reads recipe files. Several files merge key by key in order — the daemon's rule is
/// folder default, then the inbox's `recipe.yaml`, then the clip's sidecar `<stem>.yaml`
/// — so a later file changes only the keys it names (mappings merge, lists and values
/// replace). Every file must say `version: 1`, so a file written for a future format is
/// never half-understood.
public struct RecipeLoader: Sendable {
    public var resolver: AssetResolver

    public init(resolver: AssetResolver = AssetResolver()) {
        self.resolver = resolver
    }

    /// Loads one recipe, or several merged in order (most general first). Files in
    /// `dropped` came from an inbox (its `recipe.yaml`, a clip's sidecar): a symlink there
    /// is refused rather than followed. Every file is read only if it is a regular file of
    /// at most `TextFile.maximumSize`.
    public func load(_ files: [String], dropped: Set<String> = []) throws(RecipeError) -> Recipe {
        guard !files.isEmpty else { return Recipe(name: "identity") }
        var merged: RecipeNode?
        var syntaxErrors: [RecipeDiagnostic] = [], missingVersions: [RecipeDiagnostic] = []
        for file in files {
            do {
                let node = try parse(file, followSymlinks: !dropped.contains(file))
                if case let .mapping(entries, at) = node, !entries.contains(where: { $0.key == "version" }) {
                    missingVersions.append(RecipeDiagnostic("version is missing: start the recipe with 'version: \(Recipe.supportedVersion)'", at: at))
                }
                merged = merged.map { $0.merged(with: node) } ?? node
            } catch {
                syntaxErrors += error.diagnostics
            }
        }
        guard syntaxErrors.isEmpty, let merged else { throw RecipeError(syntaxErrors + missingVersions) }
        let name = ((files[0] as NSString).lastPathComponent as NSString).deletingPathExtension
        let recipe: Recipe
        do {
            recipe = try Recipe.decode(merged, name: name, resolver: resolver)
        } catch {
            // The merged tree has a version when any file has one; report each file that lacks it.
            let others = error.diagnostics.filter { !$0.message.hasPrefix("version is missing") }
            throw RecipeError(missingVersions + others)
        }
        if !missingVersions.isEmpty { throw RecipeError(missingVersions) }
        return recipe
    }

    /// Parses `yaml` as if read from `file` (for recipes that do not live in a file).
    public func load(yaml: String, file: String) throws(RecipeError) -> Recipe {
        let node = try RecipeNode.parse(yaml: yaml, file: file)
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return try Recipe.decode(node, name: name, resolver: resolver)
    }

    private func parse(_ file: String, followSymlinks: Bool) throws(RecipeError) -> RecipeNode {
        let text: String
        do { text = try TextFile.read(file, followSymlinks: followSymlinks) } catch {
            throw RecipeError("the recipe \(error)", at: .wholeFile(file))
        }
        return try RecipeNode.parse(yaml: text, file: file)
    }
}
