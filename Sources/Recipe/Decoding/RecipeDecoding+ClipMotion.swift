import DropcutTimeline

// `clips[].transform` and `clips[].ken_burns` — a clip's own zoom, turn and move.

extension Recipe {
    static func decodeTransform(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> [TransformKeyframe] {
        guard let items = reader.list(node, what) else { return [] }
        guard !items.isEmpty, items.count <= RecipeLimits.maximumKeyframes else {
            reader.error("\(what) must have 1 to \(RecipeLimits.maximumKeyframes) keyframes (got \(items.count))", at: node.location)
            return []
        }
        var keyframes: [TransformKeyframe] = []
        for (i, item) in items.enumerated() {
            let name = "\(what)[\(i)]"
            guard let f = reader.fields(item, name, allowed: RecipeReference.allowedKeys(in: "clips[].transform[]")) else { continue }
            guard let atNode = f["at"] else {
                reader.error("\(name) needs at: TIME (from the clip's start)", at: item.location)
                continue
            }
            guard case let .seconds(at)? = reader.time(atNode, "\(name).at") else { continue }
            if let last = keyframes.last, at <= last.at {
                reader.error("\(name).at \(at)s must come after the previous keyframe (\(last.at)s)", at: atNode.location)
                continue
            }
            var keyframe = TransformKeyframe(at: at, location: atNode.location)
            if let n = f["scale"] {
                guard let scale = reader.number(n, "\(name).scale", in: RecipeLimits.transformScale) else { continue }
                keyframe.scale = scale
            }
            if let n = f["rotate"] {
                guard let degrees = reader.number(n, "\(name).rotate", in: RecipeLimits.transformRotation) else { continue }
                keyframe.rotate = degrees
            }
            if let n = f["move"] {
                guard let pair = reader.list(n, "\(name).move") else { continue }
                guard pair.count == 2 else {
                    reader.error("\(name).move must be [x, y] (got \(pair.count) values)", at: n.location)
                    continue
                }
                guard let x = signedLength(pair[0], "\(name).move[0]", &reader),
                      let y = signedLength(pair[1], "\(name).move[1]", &reader) else { continue }
                (keyframe.moveX, keyframe.moveY) = (x, y)
            }
            keyframes.append(keyframe)
        }
        return keyframes
    }

    /// `-40`, `"-40px"`, `"-5%"`, bounded like lengths (and % to ten sides).
    private static func signedLength(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> SignedLength? {
        guard case let .scalar(text, _, _) = node, let length = Length.parse(text) else {
            reader.error("\(what) must be a length in px or %, like -24, \"24px\" or \"-4%\"; got \(reader.describe(node))", at: node.location)
            return nil
        }
        let pixels = RecipeLimits.maximumLengthPixels, percent = RecipeLimits.maximumMovePercent
        let value: SignedLength
        switch length {
        case let .pixels(v): value = .pixels(v)
        case let .percent(p): value = .percent(p)
        }
        let within: Bool
        switch value {
        case let .pixels(v): within = v.isFinite && abs(v) <= pixels
        case let .percent(p): within = p.isFinite && abs(p) <= percent
        }
        guard within else {
            reader.error("\(what) must be between -\(formatNumber(pixels))px and \(formatNumber(pixels))px or -\(formatNumber(percent))% and \(formatNumber(percent))% (got \(text.trimmingWhitespace()))", at: node.location)
            return nil
        }
        return value
    }

    static func decodeKenBurns(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> KenBurns? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "clips[].ken_burns")) else { return nil }
        guard let fromNode = f["from"], let toNode = f["to"] else {
            reader.error("\(what) needs from: [x, y, width, height] and to: [x, y, width, height]", at: node.location)
            return nil
        }
        guard let from = rect(fromNode, "\(what).from", &reader), let to = rect(toNode, "\(what).to", &reader) else { return nil }
        return KenBurns(from: from, to: to, location: node.location)
    }

    /// `[x, y, width, height]`, each a length; the sides more than 0.
    private static func rect(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> [Length]? {
        guard let items = reader.list(node, what) else { return nil }
        guard items.count == 4 else {
            reader.error("\(what) must be [x, y, width, height] (got \(items.count) values)", at: node.location)
            return nil
        }
        var values: [Length] = []
        for (i, item) in items.enumerated() {
            guard let length = reader.length(item, "\(what)[\(i)]") else { return nil }
            if i >= 2, length.magnitude <= 0 {
                reader.error("\(what)[\(i)] must be more than 0 (a crop needs a width and a height)", at: item.location)
                return nil
            }
            values.append(length)
        }
        return values
    }
}
