import DropcutTimeline

// `transition:` — how consecutive clips are joined.

extension Recipe {
    static func decodeTransition(_ node: RecipeNode, _ reader: inout RecipeReader) -> Transition {
        var transition = Transition()
        transition.location = node.location
        guard let f = reader.fields(node, "transition", allowed: RecipeReference.allowedKeys(in: "transition")) else { return transition }
        if let n = f["kind"] { transition.kind = reader.choice(n, "transition.kind", Transition.Kind.self) ?? .cut }
        if transition.kind != .cut { transition.duration = MediaTime(value: 1, timescale: 2) }
        if let n = f["duration"], let duration = reader.duration(n, "transition.duration") {
            if transition.kind != .cut && duration <= .zero {
                reader.error("transition.duration must be > 0 for a \(transition.kind.rawValue)", at: n.location)
            } else {
                transition.duration = transition.kind == .cut ? .zero : duration
            }
        }
        return transition
    }
}
