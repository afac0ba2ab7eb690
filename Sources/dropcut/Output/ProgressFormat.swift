import ArgumentParser

/// How `dropcut render` reports its progress (`--progress`).
enum ProgressFormat: String, CaseIterable, ExpressibleByArgument {
    /// A redrawn line on a terminal (`bar`), occasional lines otherwise.
    case auto
    /// The redrawn line, even when standard error is not a terminal (as `ffmpeg -stats`).
    case bar
    /// One JSON object per line on standard output (as `ffmpeg -progress pipe:1`).
    case json
    /// Nothing.
    case none

    /// What is written, given whether standard error is a terminal and `--quiet`.
    func style(terminal: Bool, quiet: Bool) -> RenderProgress.Style {
        switch self {
        case .json: return .json
        case .none: return .none
        case _ where quiet: return .none
        case .bar: return .bar
        case .auto: return terminal ? .bar : .lines
        }
    }
}
