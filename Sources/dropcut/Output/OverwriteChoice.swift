import ArgumentParser

/// `-y/--overwrite` or `-n/--no-overwrite` (one at most): what `dropcut render` does with
/// an output name that already exists. Without either it replaces it, as `-y` does.
enum OverwriteChoice: String, EnumerableFlag {
    /// Replace what has the name (the default), as `mv` does.
    case overwrite
    /// Render nothing for an input whose output exists: an error naming the file.
    case noOverwrite

    static func name(for value: Self) -> NameSpecification {
        switch value {
        case .overwrite: return [.customShort("y"), .customLong("overwrite")]
        case .noOverwrite: return [.customShort("n"), .customLong("no-overwrite")]
        }
    }

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .overwrite: return "Replace outputs that exist."
        case .noOverwrite: return "Refuse an input whose output exists: an error naming the file, nothing written, exit 1."
        }
    }
}
