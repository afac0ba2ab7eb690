/// Why a recipe could not be built for particular media.
public enum CompositionBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The recipe asks for something these media cannot give (a trim past the clip's
    /// end, a transition longer than a clip...), at a position in the recipe.
    case recipe(RecipeError)
    /// A media file could not be used.
    case media(path: String, reason: String)
    /// The build was cancelled while it measured the clips' sound.
    case cancelled

    public var description: String {
        switch self {
        case let .recipe(error): return error.description
        case let .media(path, reason): return "\(path): \(reason)"
        case .cancelled: return "cancelled"
        }
    }
}
