import DropcutTimeline

// `overlays[].animate:` — keyframe animations of opacity, position, scale and rotation.

extension Recipe {
    /// `animate: [ { property, keyframes: [ { at, value, timing } ], repeat, autoreverse } ]`.
    static func decodeOverlayAnimations(_ node: RecipeNode, _ reader: inout RecipeReader) -> [Overlay.Animation] {
        guard let items = reader.list(node, "overlay animate") else { return [] }
        var animations: [Overlay.Animation] = []
        var seen: Set<Overlay.Animation.Property> = []
        for item in items {
            guard let animation = decodeOverlayAnimation(item, &reader) else { continue }
            guard seen.insert(animation.property).inserted else {
                reader.error("overlay animate has two \(animation.property.rawValue) animations; keyframes of one property go in one list",
                             at: animation.location)
                continue
            }
            animations.append(animation)
        }
        return animations
    }

    private static func decodeOverlayAnimation(_ node: RecipeNode, _ reader: inout RecipeReader) -> Overlay.Animation? {
        guard let f = reader.fields(node, "overlay animation", allowed: RecipeReference.allowedKeys(in: "overlays[].animate[]")) else { return nil }
        guard let propertyNode = f["property"] else {
            reader.error("overlay animation needs property: opacity, position, scale, rotate or spin", at: node.location)
            return nil
        }
        let property = reader.choice(propertyNode, "overlay animation property", Overlay.Animation.Property.self)
        var repeatCount: Int? = 1
        if let n = f["repeat"] {
            if case let .scalar(text, _, _) = n, text == "forever" { repeatCount = nil } else {
                repeatCount = reader.integer(n, "overlay animation repeat (a count or forever)", in: RecipeLimits.repeatCount) ?? 1
            }
        }
        let autoreverse = f["autoreverse"].flatMap { reader.bool($0, "overlay animation autoreverse") } ?? false
        guard let keyframesNode = f["keyframes"] else {
            reader.error("overlay animation needs keyframes: [ { at: 0, value: ... }, ... ]", at: node.location)
            return nil
        }
        guard let items = reader.list(keyframesNode, "overlay animation keyframes") else { return nil }
        guard (1...RecipeLimits.maximumKeyframes).contains(items.count) else {
            reader.error("overlay animation keyframes must be 1 to \(RecipeLimits.maximumKeyframes) (got \(items.count))", at: keyframesNode.location)
            return nil
        }
        var keyframes: [Overlay.Animation.Keyframe] = []
        var failed = property == nil
        // The time before, even when that keyframe's value was bad: its order is checked too.
        var previousAt: MediaTime?
        for (i, item) in items.enumerated() {
            guard let k = reader.fields(item, "overlay keyframe", allowed: RecipeReference.allowedKeys(in: "overlays[].animate[].keyframes[]")) else {
                failed = true
                continue
            }
            var timing = TimingFunction.linear
            if let n = k["timing"] {
                if i == 0 {
                    reader.error("timing paces the way to a keyframe from the one before it; the first keyframe has none", at: k.keyLocation("timing")!)
                }
                timing = reader.choice(n, "overlay keyframe timing", TimingFunction.self) ?? timing
            }
            guard let atNode = k["at"], let valueNode = k["value"] else {
                reader.error("overlay keyframe needs at: TIME and value: ...", at: item.location)
                failed = true
                continue
            }
            guard let at = reader.duration(atNode, "overlay keyframe at") else { failed = true; continue }
            defer { previousAt = at }
            if let previous = previousAt, at <= previous {
                reader.error("overlay keyframe at must be after the keyframe before it (\(previous)s)", at: atNode.location)
                failed = true
                continue
            }
            guard let property, let value = decodeKeyframeValue(valueNode, property, &reader) else { failed = true; continue }
            keyframes.append(.init(at: at, value: value, timing: timing))
        }
        guard !failed, let property else { return nil }
        return Overlay.Animation(property: property, keyframes: keyframes, repeatCount: repeatCount, autoreverse: autoreverse,
                                 location: propertyNode.location)
    }

    /// Opacity 0 to 1, scale 0 to 100, degrees, or a position: an anchor or `[x, y]` with
    /// each 0 (left, top) to 1 (right, bottom) of the room within the margins.
    private static func decodeKeyframeValue(_ node: RecipeNode, _ property: Overlay.Animation.Property,
                                            _ reader: inout RecipeReader) -> Overlay.Animation.Value? {
        switch property {
        case .opacity: return reader.number(node, "overlay opacity keyframe", in: 0...1).map { .number($0) }
        case .scale: return reader.number(node, "overlay scale keyframe", in: RecipeLimits.overlayScale).map { .number($0) }
        case .spin: return reader.number(node, "overlay spin keyframe (degrees)", in: RecipeLimits.rotationDegrees).map { .number($0) }
        case .rotate: return reader.number(node, "overlay rotate keyframe (degrees)", in: RecipeLimits.rotationDegrees).map { .number($0) }
        case .position:
            if case let .sequence(items, _) = node {
                guard items.count == 2 else {
                    reader.error("overlay position keyframe must be an anchor or [x, y] (got \(items.count) numbers)", at: node.location)
                    return nil
                }
                guard let x = reader.number(items[0], "overlay position keyframe x", in: 0...1),
                      let y = reader.number(items[1], "overlay position keyframe y", in: 0...1) else { return nil }
                return .point(Point(x: x, y: y))
            }
            return reader.choice(node, "overlay position keyframe", Anchor.self).map { .point($0.unitPoint) }
        }
    }
}
