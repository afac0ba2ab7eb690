import DropcutTimeline

// `music:` — the music bed: source, level, looping, fades and ducking.

extension Recipe {
    static func decodeMusic(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> Music? {
        guard let f = reader.fields(node, "music", allowed: RecipeReference.allowedKeys(in: "music")) else { return nil }
        guard let sourceNode = f["source"] else {
            reader.error("music needs a source: the music file", at: node.location)
            return nil
        }
        guard let path = reader.string(sourceNode, "music.source") else { return nil }
        var music = Music(source: path, location: node.location)
        switch resolver.resolve(path, recipeFile: sourceNode.location.file) {
        case let .success(resolved): music.source = resolved
        case let .failure(failure): reader.error("music.source \(failure)", at: sourceNode.location)
        }
        if let n = f["gain"], let gain = reader.gain(n, "music.gain", in: RecipeLimits.gain) { music.gain = gain }
        if let n = f["loop"], let loop = reader.bool(n, "music.loop") { music.loop = loop }
        if let n = f["offset"], let offset = reader.duration(n, "music.offset") {
            if offset < .zero { reader.error("music.offset must not be negative (got \(offset)s)", at: n.location) } else { music.offset = offset }
        }
        if let n = f["fade"] { (music.fadeIn, music.fadeOut) = decodeFade(n, "music.fade", section: "music.fade", &reader) }
        if let n = f["duck"], let d = reader.fields(n, "music.duck", allowed: RecipeReference.allowedKeys(in: "music.duck")) {
            var duck = Duck()
            if let v = d["depth"], let depth = reader.gain(v, "music.duck.depth", in: RecipeLimits.duckDepth) { duck.depth = depth }
            if let v = d["threshold"], let threshold = reader.gain(v, "music.duck.threshold", fullScale: true, in: RecipeLimits.duckThreshold) { duck.threshold = threshold }
            let longest = MediaTime(seconds: RecipeLimits.maximumDuckTimeSeconds)
            for (key, keyPath) in [("attack", \Duck.attack), ("release", \Duck.release)] {
                guard let v = d[key], let value = reader.duration(v, "music.duck.\(key)") else { continue }
                if value <= .zero || value > longest {
                    reader.error("music.duck.\(key) must be between 0 and \(RecipeLimits.maximumDuckTimeSeconds) seconds (got \(value)s)", at: v.location)
                } else {
                    duck[keyPath: keyPath] = value
                }
            }
            if let v = d["hold"], let hold = reader.duration(v, "music.duck.hold") {
                if hold < .zero || hold > longest {
                    reader.error("music.duck.hold must be between 0 and \(RecipeLimits.maximumDuckTimeSeconds) seconds (got \(hold)s)", at: v.location)
                } else {
                    duck.hold = hold
                }
            }
            if let v = d["windows"], let items = reader.list(v, "music.duck.windows") {
                duck.windows = items.enumerated().compactMap { i, item in reader.closedRange(item, "music.duck.windows[\(i)]") }
            }
            music.duck = duck
        }
        return music
    }
}
