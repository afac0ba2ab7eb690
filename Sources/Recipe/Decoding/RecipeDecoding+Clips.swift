import DropcutTimeline

// `clips:` — sources, trims, speed ranges and ramps, clip sound and frame sampling.

extension Recipe {
    static func decodeClips(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> [Clip] {
        guard let items = reader.list(node, "clips") else { return [Clip()] }
        if items.isEmpty {
            reader.error("clips must list at least one clip (leave it out to use the dropped clip)", at: node.location)
            return [Clip()]
        }
        return items.enumerated().map { index, item in
            var clip = Clip()
            clip.location = item.location
            let what = "clips[\(index)]"
            guard let f = reader.fields(item, what, allowed: RecipeReference.allowedKeys(in: "clips[]")) else { return clip }
            if let n = f["source"], let source = reader.string(n, "\(what).source") {
                if source == "{input}" {
                    clip.source = source
                } else if source.contains("{") {
                    reader.error("\(what).source must be {input} or a file path (got \"\(source)\")", at: n.location)
                } else {
                    switch resolver.resolve(source, recipeFile: n.location.file) {
                    case let .success(path): clip.source = path
                    case let .failure(failure): reader.error("\(what).source \(failure)", at: n.location)
                    }
                }
            }
            if let n = f["trim"] { clip.trim = reader.closedRange(n, "\(what).trim") }
            if let n = f["duration"] {
                clip.duration = decodeStillDuration(n, "\(what).duration", &reader)
                clip.durationLocation = n.location
                // A still has no time of its own to cut or play at another speed; a video's
                // length is its trim. (Whether the source is a still is known once it is
                // probed: the builder says so then.)
                if let other = ["trim", "speed", "ramp"].first(where: { f[$0] != nil }) {
                    reader.error("\(what) takes duration (a still image's) or \(other) (a video's), not both", at: n.location)
                }
            }
            if let n = f["audio"] { clip.audio = reader.choice(n, "\(what).audio", AudioMode.self) ?? .preservePitch }
            if let n = f["volume"], let volume = reader.gain(n, "\(what).volume", in: RecipeLimits.gain) { clip.volume = volume }
            if let n = f["frames"] { clip.frames = reader.choice(n, "\(what).frames", FrameSampling.self) ?? .repeat }
            if let n = f["speed"], let ranges = reader.list(n, "\(what).speed") {
                if ranges.count > RecipeLimits.maximumKeyframes {
                    reader.error("\(what).speed must have at most \(RecipeLimits.maximumKeyframes) ranges (got \(ranges.count))", at: n.location)
                } else {
                    clip.speed = ranges.enumerated().compactMap { i, r in decodeSpeed(r, "\(what).speed[\(i)]", &reader) }
                }
            }
            if let n = f["ramp"] { clip.speed += decodeRamp(n, "\(what).ramp", &reader) }
            if f["speed"] != nil || f["ramp"] != nil { checkSpeedRanges(clip, &reader) }
            if let n = f["transform"] { clip.transform = decodeTransform(n, "\(what).transform", &reader) }
            if let n = f["ken_burns"] {
                if f["transform"] != nil {
                    reader.error("\(what) takes ken_burns or transform, not both", at: n.location)
                } else {
                    clip.kenBurns = decodeKenBurns(n, "\(what).ken_burns", &reader)
                }
            }
            return clip
        }
    }

    /// `duration: 4`: more than 0 and at most `RecipeLimits.maximumStillDuration`, one
    /// message naming both bounds for whatever lies outside them (negative, zero, `1e19`).
    private static func decodeStillDuration(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> MediaTime? {
        let limit = RecipeLimits.maximumStillDuration
        let bounds = "\(what) must be more than 0 and at most \(RecipeLimits.maximumStillText)"
        if case let .scalar(text, _, _) = node {
            let written = text.trimmingWhitespace()
            if case let .seconds(value)? = RecipeTime.parse(text) {
                guard value > .zero, value <= limit else {
                    reader.error("\(bounds) (got \(written))", at: node.location)
                    return nil
                }
                return value
            }
            if RecipeTime.isTooLarge(text, limit: Double(RecipeLimits.maximumStillSeconds)) {
                reader.error("\(bounds) (got \(written))", at: node.location)
                return nil
            }
        }
        // Not a time at all: the reader says what times look like.
        guard let value = reader.duration(node, what) else { return nil }
        guard value > .zero, value <= limit else {
            reader.error("\(bounds) (got \(value)s)", at: node.location)
            return nil
        }
        return value
    }

    /// `ramp: [ {at: 2.4, rate: 1}, {at: 2.9, rate: 0.25}, {at: 13.3, rate: 0.25}, {at: 13.8, rate: 1} ]`:
    /// speed keyframes in source time, expanded by `SpeedRamp` into stepped speed ranges.
    private static func decodeRamp(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> [SpeedRange] {
        guard let items = reader.list(node, what) else { return [] }
        guard items.count <= RecipeLimits.maximumKeyframes else {
            reader.error("\(what) must have at most \(RecipeLimits.maximumKeyframes) keyframes (got \(items.count))", at: node.location)
            return []
        }
        var points: [SpeedRamp.Keyframe] = []
        let problemsBefore = reader.diagnostics.count
        for (i, item) in items.enumerated() {
            guard let f = reader.fields(item, "\(what)[\(i)]", allowed: RecipeReference.allowedKeys(in: "clips[].ramp[]")) else { continue }
            guard let atNode = f["at"], let rateNode = f["rate"] else {
                reader.error("\(what)[\(i)] needs at: TIME and rate: NUMBER", at: item.location)
                continue
            }
            guard case let .seconds(at)? = reader.time(atNode, "\(what)[\(i)].at"),
                  let rate = reader.number(rateNode, "\(what)[\(i)].rate", in: RecipeLimits.speedRate) else { continue }
            if let last = points.last, at <= last.at {
                reader.error("\(what)[\(i)].at \(at)s must come after the previous keyframe (\(last.at)s)", at: atNode.location)
                continue
            }
            points.append(SpeedRamp.Keyframe(at: at, rate: rate, location: atNode.location))
        }
        guard points.count >= 2 else {
            // (Unless a keyframe was already reported: one message per mistake.)
            if reader.diagnostics.count == problemsBefore { reader.error("\(what) needs at least two keyframes", at: node.location) }
            return []
        }
        // Each 50 ms where the rate changes is a speed range of its own: bound their number.
        var glide = MediaTime.zero
        for (a, b) in zip(points, points.dropFirst()) where a.rate != b.rate { glide += b.at - a.at }
        if glide > MediaTime(seconds: RecipeLimits.maximumGlideSeconds) {
            reader.error("\(what) must glide (change rate) for at most \(RecipeLimits.maximumGlideSeconds) s in all (got \(glide)s)", at: node.location)
            return []
        }
        return SpeedRamp.ranges(points)
    }

    private static func decodeSpeed(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> SpeedRange? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "clips[].speed[]")) else { return nil }
        guard let rangeNode = f["range"] else { reader.error("\(what) needs a range: [start, end]", at: node.location); return nil }
        guard let rateNode = f["rate"] else { reader.error("\(what) needs a rate (0.25 is 4x slow motion)", at: node.location); return nil }
        let range = reader.closedRange(rangeNode, "\(what).range")
        let limits = RecipeLimits.speedRate
        let between = "speed rate must be between \(formatNumber(limits.lowerBound)) and \(formatNumber(limits.upperBound))"
        guard case let .scalar(text, _, _) = rateNode, let rate = MediaTime(exactly: text.trimmingWhitespace()) else {
            // `1e19` or twenty digits: a number, out of range, that no MediaTime holds.
            if case let .scalar(text, _, _) = rateNode, RecipeTime.isTooLarge(text, limit: limits.upperBound) {
                reader.error("\(between) (got \(text.trimmingWhitespace()))", at: rateNode.location)
                return nil
            }
            reader.error("\(what).rate must be a number (0.25 is 4x slow motion); got \(reader.describe(rateNode))", at: rateNode.location)
            return nil
        }
        guard rate > .zero else {
            reader.error("speed rate must be > 0 (got \(text.trimmingWhitespace()))", at: rateNode.location)
            return nil
        }
        guard rate >= MediaTime(seconds: limits.lowerBound, preferredTimescale: 1_000), rate <= MediaTime(seconds: limits.upperBound, preferredTimescale: 1_000) else {
            reader.error("\(between) (got \(text.trimmingWhitespace()))", at: rateNode.location)
            return nil
        }
        guard let range else { return nil }
        return SpeedRange(range: range, rate: rate, location: node.location)
    }

    /// Speed ranges lie inside the trim and do not overlap.
    private static func checkSpeedRanges(_ clip: Clip, _ reader: inout RecipeReader) {
        let trimStart = clip.trim.map { if case let .seconds(s) = $0.start { return s } else { return .zero } } ?? .zero
        let trimEnd: MediaTime? = clip.trim.flatMap { if case let .seconds(e) = $0.end { return e } else { return nil } }
        for speed in clip.speed {
            guard case let .seconds(start) = speed.range.start else { continue }
            let end: MediaTime? = { if case let .seconds(e) = speed.range.end { return e } else { return nil } }()
            if start < trimStart || (trimEnd != nil && (end ?? .positiveInfinity) > trimEnd!) {
                let trimText = clip.trim.map { "[\($0.start), \($0.end)]" } ?? ""
                reader.error("speed range [\(speed.range.start), \(speed.range.end)] lies outside the trim \(trimText)", at: speed.range.location)
            }
        }
        let sorted = clip.speed.sorted { $0.range.start.resolved(end: .positiveInfinity) < $1.range.start.resolved(end: .positiveInfinity) }
        for (a, b) in zip(sorted, sorted.dropFirst())
        where b.range.start.resolved(end: .positiveInfinity) < a.range.end.resolved(end: .positiveInfinity) {
            reader.error("speed ranges [\(a.range.start), \(a.range.end)] and [\(b.range.start), \(b.range.end)] overlap", at: b.range.location)
        }
    }
}
