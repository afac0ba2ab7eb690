import DropcutTimeline

// `audio:` — sound files placed on the output timeline: source, time, trim, level, fades,
// mix or replace, pitch, and whether the music ducks under them.

extension Recipe {
    static func decodeAudioItems(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> [AudioItem] {
        guard let items = reader.list(node, "audio") else { return [] }
        guard items.count <= RecipeLimits.maximumAudioItems else {
            reader.error("audio must have at most \(RecipeLimits.maximumAudioItems) items (got \(items.count))", at: node.location)
            return []
        }
        let decoded = items.enumerated().compactMap { index, item in decodeAudioItem(item, "audio[\(index)]", &reader, resolver) }
        checkReplaceOverlaps(decoded.compactMap { item in item.knownLength.map { (item, $0) } }, &reader)
        return decoded
    }

    private static func decodeAudioItem(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> AudioItem? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "audio[]")) else { return nil }
        var item = AudioItem(source: "", location: node.location, atLocation: node.location)
        var sourceIsGood = false
        if let n = f["source"] {
            if let path = reader.string(n, "\(what).source") {
                if path.contains("{") {
                    // `{input}` is the dropped clip's sound: that is the clips' own audio.
                    reader.error("\(what).source must be a file path (got \"\(path)\")", at: n.location)
                } else {
                    switch resolver.resolve(path, recipeFile: n.location.file) {
                    case let .success(resolved): item.source = resolved; sourceIsGood = true
                    case let .failure(failure): reader.error("\(what).source \(failure)", at: n.location)
                    }
                }
            }
        } else {
            reader.error("\(what) needs a source: the sound file", at: node.location)
        }
        if let n = f["at"] {
            item.atLocation = n.location
            if let at = reader.duration(n, "\(what).at") { item.at = at }
        }
        if let n = f["trim"] { item.trim = reader.closedRange(n, "\(what).trim") }
        if let n = f["volume"], let volume = reader.gain(n, "\(what).volume", in: RecipeLimits.gain) { item.volume = volume }
        if let n = f["fade"] { (item.fadeIn, item.fadeOut) = decodeFade(n, "\(what).fade", section: "audio[].fade", &reader) }
        if let n = f["mode"] { item.mode = reader.choice(n, "\(what).mode", AudioItem.Mode.self) ?? .mix }
        if let n = f["pitch"], let pitch = reader.number(n, "\(what).pitch (semitones)", in: RecipeLimits.pitchSemitones) { item.pitch = pitch }
        if let n = f["duck_music"], let duck = reader.bool(n, "\(what).duck_music") { item.duckMusic = duck }
        // Fades must fit the item, when its length is known now (else the builder checks).
        if let length = item.knownLength, item.fadeIn + item.fadeOut > length, let fade = f["fade"] {
            reader.error("\(what) fades (\(item.fadeIn)s in + \(item.fadeOut)s out) are longer than the item (\(length)s)", at: fade.location)
        }
        return sourceIsGood ? item : nil
    }

    /// Replace items must not overlap: over a stretch where two replace the clips' sound,
    /// which one does is not said. `items` are those whose length is known (the rest are
    /// checked by the builder, with their files' lengths).
    static func checkReplaceOverlaps(_ items: [(item: AudioItem, length: MediaTime)], _ reader: inout RecipeReader) {
        for overlap in replaceOverlaps(items.map { ($0.item, TimeRange(start: $0.item.at, duration: $0.length)) }) {
            reader.error(overlap.message, at: overlap.later.atLocation)
        }
    }

    /// Two `replace` items whose ranges in output time overlap.
    struct ReplaceOverlap {
        var earlier: AudioItem, earlierRange: TimeRange
        var later: AudioItem, laterRange: TimeRange

        var message: String {
            "audio items replacing the clips' sound overlap: the one at \(later.at)s starts before the one at "
                + "\(earlier.at)s (line \(earlier.location.line)) ends at \(earlierRange.end)s"
        }
    }

    /// Every pair of overlapping `replace` items, once each (the later-starting one is
    /// the one reported): shared by the decoder and the builder.
    static func replaceOverlaps(_ items: [(item: AudioItem, range: TimeRange)]) -> [ReplaceOverlap] {
        let replacing = items.filter { $0.item.mode == .replace }.sorted { $0.range.start < $1.range.start }
        var overlaps: [ReplaceOverlap] = []
        for (i, a) in replacing.enumerated() {
            for b in replacing[(i + 1)...] where b.range.start < a.range.end {
                overlaps.append(ReplaceOverlap(earlier: a.item, earlierRange: a.range, later: b.item, laterRange: b.range))
            }
        }
        return overlaps
    }
}

extension Recipe.AudioItem {
    /// The item's length when the recipe says it (a trim with two times), before the
    /// output's end cuts it.
    var knownLength: MediaTime? {
        guard let trim, case let .seconds(start) = trim.start, case let .seconds(end) = trim.end else { return nil }
        return end - start
    }
}
