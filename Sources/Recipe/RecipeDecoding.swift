import Timeline

extension Recipe {
    /// The recipe format version this dropcut reads.
    public static let supportedVersion = 1

    static let topLevelKeys = ["version", "output", "orientation", "clips", "transition", "overlays", "music", "original_audio"]
    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    /// Decodes and checks a (possibly merged) recipe tree. Every problem is reported, in
    /// file order, with its position; asset paths are resolved through `resolver`
    /// against the folder of the file each path was written in.
    public static func decode(_ root: RecipeNode, name: String, resolver: AssetResolver) throws(RecipeError) -> Recipe {
        var reader = RecipeReader()
        var recipe = Recipe(name: name)
        guard let top = reader.fields(root, "the recipe", allowed: topLevelKeys) else { throw RecipeError(reader.diagnostics) }

        if let node = top["version"] {
            if let version = reader.integer(node, "version", in: Int.min...Int.max) {
                if version != supportedVersion {
                    reader.error("version \(version) is not supported (this dropcut reads version \(supportedVersion))", at: node.location)
                }
                recipe.version = version
            }
        } else {
            reader.error("version is missing: start the recipe with 'version: \(supportedVersion)'", at: top.location)
        }
        if let node = top["output"] { recipe.output = decodeOutput(node, &reader) }
        if let node = top["orientation"] { recipe.orientation = decodeOrientation(node, &reader) }
        if let node = top["clips"] { recipe.clips = decodeClips(node, &reader, resolver) }
        if let node = top["transition"] { recipe.transition = decodeTransition(node, &reader) }
        if let node = top["overlays"] {
            recipe.overlays = reader.list(node, "overlays")?.compactMap { decodeOverlay($0, &reader, resolver) } ?? []
        }
        if let node = top["music"] { recipe.music = decodeMusic(node, &reader, resolver) }
        if let node = top["original_audio"] { recipe.originalAudio = reader.choice(node, "original_audio", OriginalAudio.self) ?? .keep }

        let diagnostics = reader.diagnostics.sorted { ($0.location.file, $0.location.line, $0.location.column) < ($1.location.file, $1.location.line, $1.location.column) }
        if !diagnostics.isEmpty { throw RecipeError(diagnostics) }
        return recipe
    }

    // MARK: Sections

    private static func decodeOutput(_ node: RecipeNode, _ reader: inout RecipeReader) -> Output {
        var output = Output()
        guard let f = reader.fields(node, "output", allowed: ["filename", "size", "fit", "fps", "video", "audio"]) else { return output }
        if let n = f["filename"], let text = reader.string(n, "output.filename") {
            do {
                let template = try FilenameTemplate(text)
                let sample = template.render(.init(inputPath: "clip.mov", recipeName: "recipe"))
                let ext = sample.split(separator: ".").last.map { $0.lowercased() } ?? ""
                if text.contains("/") || template.usesInput {
                    reader.error("output.filename must be a file name without folders (the output goes to the outbox)", at: n.location)
                } else if !["mp4", "mov", "m4v"].contains(ext) || !sample.contains(".") {
                    reader.error("output.filename must end in .mp4, .mov or .m4v (got \"\(text)\")", at: n.location)
                } else {
                    output.filename = template
                }
            } catch {
                reader.error("output.filename: \(error)", at: n.location)
            }
        }
        if let n = f["size"] {
            if case .scalar("source", _, _) = n {
                output.size = nil
            } else if case let .scalar(text, _, _) = n, let size = PixelSizeParser.parse(text) {
                if !(16...8192).contains(size.width) || !(16...8192).contains(size.height) {
                    reader.error("output.size must be between 16 and 8192 pixels a side (got \(size))", at: n.location)
                } else if size.width % 2 != 0 || size.height % 2 != 0 {
                    reader.error("output.size must have even width and height for 4:2:0 video (got \(size))", at: n.location)
                } else {
                    output.size = size
                }
            } else {
                reader.error("output.size must be WIDTHxHEIGHT (like 1080x1920) or source; got \(reader.describe(n))", at: n.location)
            }
        }
        if let n = f["fit"] { output.fit = reader.choice(n, "output.fit", ContentMode.self) ?? .fit }
        if let n = f["fps"] {
            if case .scalar("source", _, _) = n {
                output.fps = nil
            } else if case let .scalar(text, _, _) = n, let rate = MediaTime(exactly: text.trimmingWhitespace()) {
                if rate < MediaTime(seconds: 1) || rate > MediaTime(seconds: 240) {
                    reader.error("output.fps must be between 1 and 240 (got \(text))", at: n.location)
                } else {
                    output.fps = rate
                }
            } else {
                reader.error("output.fps must be a frame rate (30, 29.97, 30000/1001) or source; got \(reader.describe(n))", at: n.location)
            }
        }
        if let n = f["video"], let v = reader.fields(n, "output.video", allowed: ["codec", "crf", "preset"]) {
            if let c = v["codec"] { output.video.codec = reader.choice(c, "output.video.codec", VideoCodec.Codec.self) ?? .h264 }
            if let c = v["crf"] { output.video.crf = reader.integer(c, "output.video.crf", in: 0...51) ?? output.video.crf }
            if let c = v["preset"], let preset = reader.string(c, "output.video.preset") {
                if x264Presets.contains(preset) {
                    output.video.preset = preset
                } else {
                    var message = "output.video.preset must be one of \(x264Presets.joined(separator: ", ")) (got '\(preset)')"
                    if let s = RecipeReader.suggestion(for: preset, among: x264Presets) { message += "; did you mean '\(s)'?" }
                    reader.error(message, at: c.location)
                }
            }
        }
        if let n = f["audio"], let a = reader.fields(n, "output.audio", allowed: ["codec", "bitrate", "loudness"]) {
            if let c = a["loudness"] {
                // -16LUFS, -16 LUFS or -16.
                if case let .scalar(text, _, _) = c, let value = Double(text.trimmingWhitespace().uppercased().replacingOccurrences(of: "LUFS", with: "").trimmingWhitespace()) {
                    if (-60.0 ... -5.0).contains(value) {
                        output.audio.loudness = value
                    } else {
                        reader.error("output.audio.loudness must be between -60LUFS and -5LUFS (got \(text))", at: c.location)
                    }
                } else {
                    reader.error("output.audio.loudness must be a loudness like -16LUFS; got \(reader.describe(c))", at: c.location)
                }
            }
            if let c = a["codec"] { output.audio.codec = reader.choice(c, "output.audio.codec", AudioCodec.Codec.self) ?? .aac }
            if let c = a["bitrate"] {
                if case let .scalar(text, _, _) = c, let bits = BitrateParser.parse(text) {
                    if (32_000...512_000).contains(bits) {
                        output.audio.bitrate = bits
                    } else {
                        reader.error("output.audio.bitrate must be between 32k and 512k (got \(text))", at: c.location)
                    }
                } else {
                    reader.error("output.audio.bitrate must be a bit rate like 160k; got \(reader.describe(c))", at: c.location)
                }
            }
        }
        return output
    }

    private static func decodeOrientation(_ node: RecipeNode, _ reader: inout RecipeReader) -> Orientation {
        if case let .scalar(text, _, _) = node {
            let t = text.trimmingWhitespace()
            if t == "auto" { return .auto }
            if let degrees = Int(t), [0, 90, 180, 270].contains(degrees) { return .degrees(degrees) }
        }
        reader.error("orientation must be auto, 0, 90, 180 or 270; got \(reader.describe(node))", at: node.location)
        return .auto
    }

    private static func decodeClips(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> [Clip] {
        guard let items = reader.list(node, "clips") else { return [Clip()] }
        if items.isEmpty {
            reader.error("clips must list at least one clip (leave it out to use the dropped clip)", at: node.location)
            return [Clip()]
        }
        return items.enumerated().map { index, item in
            var clip = Clip()
            clip.location = item.location
            let what = "clips[\(index)]"
            guard let f = reader.fields(item, what, allowed: ["source", "trim", "speed", "ramp", "audio", "frames", "volume"]) else { return clip }
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
            if let n = f["audio"] { clip.audio = reader.choice(n, "\(what).audio", AudioMode.self) ?? .preservePitch }
            if let n = f["volume"], let volume = reader.gain(n, "\(what).volume", in: -60...20) { clip.volume = volume }
            if let n = f["frames"] { clip.frames = reader.choice(n, "\(what).frames", FrameSampling.self) ?? .repeat }
            if let n = f["speed"], let ranges = reader.list(n, "\(what).speed") {
                clip.speed = ranges.enumerated().compactMap { i, r in decodeSpeed(r, "\(what).speed[\(i)]", &reader) }
            }
            if let n = f["ramp"] { clip.speed += decodeRamp(n, "\(what).ramp", &reader) }
            if f["speed"] != nil || f["ramp"] != nil { checkSpeedRanges(clip, &reader) }
            return clip
        }
    }

    /// `ramp: [ {at: 2.4, rate: 1}, {at: 2.9, rate: 0.25}, {at: 13.3, rate: 0.25}, {at: 13.8, rate: 1} ]`:
    /// speed keyframes in source time, expanded by `SpeedRamp` into stepped speed ranges.
    private static func decodeRamp(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> [SpeedRange] {
        guard let items = reader.list(node, what) else { return [] }
        var points: [SpeedRamp.Keyframe] = []
        let problemsBefore = reader.diagnostics.count
        for (i, item) in items.enumerated() {
            guard let f = reader.fields(item, "\(what)[\(i)]", allowed: ["at", "rate"]) else { continue }
            guard let atNode = f["at"], let rateNode = f["rate"] else {
                reader.error("\(what)[\(i)] needs at: TIME and rate: NUMBER", at: item.location)
                continue
            }
            guard case let .seconds(at)? = reader.time(atNode, "\(what)[\(i)].at"),
                  let rate = reader.number(rateNode, "\(what)[\(i)].rate", in: 0.05...16) else { continue }
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
        return SpeedRamp.ranges(points)
    }

    private static func decodeSpeed(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> SpeedRange? {
        guard let f = reader.fields(node, what, allowed: ["range", "rate"]) else { return nil }
        guard let rangeNode = f["range"] else { reader.error("\(what) needs a range: [start, end]", at: node.location); return nil }
        guard let rateNode = f["rate"] else { reader.error("\(what) needs a rate (0.25 is 4x slow motion)", at: node.location); return nil }
        let range = reader.closedRange(rangeNode, "\(what).range")
        guard case let .scalar(text, _, _) = rateNode, let rate = MediaTime(exactly: text.trimmingWhitespace()) else {
            reader.error("\(what).rate must be a number (0.25 is 4x slow motion); got \(reader.describe(rateNode))", at: rateNode.location)
            return nil
        }
        guard rate > .zero else {
            reader.error("speed rate must be > 0 (got \(text.trimmingWhitespace()))", at: rateNode.location)
            return nil
        }
        guard rate >= MediaTime(value: 5, timescale: 100), rate <= MediaTime(seconds: 16) else {
            reader.error("speed rate must be between 0.05 and 16 (got \(text.trimmingWhitespace()))", at: rateNode.location)
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

    private static func decodeTransition(_ node: RecipeNode, _ reader: inout RecipeReader) -> Transition {
        var transition = Transition()
        transition.location = node.location
        guard let f = reader.fields(node, "transition", allowed: ["kind", "duration"]) else { return transition }
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

    private static func decodeFade(_ node: RecipeNode, _ what: String, _ reader: inout RecipeReader) -> (MediaTime, MediaTime) {
        guard let f = reader.fields(node, what, allowed: ["in", "out"]) else { return (.zero, .zero) }
        let fadeIn = f["in"].flatMap { reader.duration($0, "\(what).in") } ?? .zero
        let fadeOut = f["out"].flatMap { reader.duration($0, "\(what).out") } ?? .zero
        return (fadeIn, fadeOut)
    }

    private static func decodeOverlay(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> Overlay? {
        let keys = ["image", "frames", "fps", "text", "anchor", "margin", "width", "size", "opacity", "fade", "during", "font", "color",
                    "move", "outline", "shadow"]
        guard let f = reader.fields(node, "overlay", allowed: keys) else { return nil }
        let content = decodeOverlayContent(f, node, &reader, resolver)
        // Read the other keys even when the content is bad, so every error shows at once.
        var overlay = Overlay(content: content ?? .image(""), location: node.location)
        if let n = f["anchor"] { overlay.anchor = reader.choice(n, "overlay anchor", Anchor.self) ?? overlay.anchor }
        if let n = f["margin"], let margin = reader.length(n, "overlay margin") { overlay.margin = margin }
        if let n = f["width"], let width = reader.length(n, "overlay width") {
            if width.magnitude == 0 { reader.error("overlay width must be > 0", at: n.location) } else { overlay.width = width }
        }
        if let n = f["opacity"], let opacity = reader.number(n, "overlay opacity", in: 0...1) { overlay.opacity = opacity }
        if let n = f["fade"] { (overlay.fadeIn, overlay.fadeOut) = decodeFade(n, "overlay fade", &reader) }
        if let n = f["during"] { overlay.during = reader.closedRange(n, "overlay during") }
        if let n = f["move"] { overlay.move = decodeMove(n, from: overlay.anchor, &reader) }
        for key in ["outline", "shadow"] {
            guard let n = f[key] else { continue }
            if case .text = content {} else if content != nil {
                reader.error("\(key) applies to text overlays, not images", at: f.keyLocation(key)!)
                continue
            }
            let stroke = decodeStroke(n, key, defaultColor: key == "outline" ? .black : Color(red: 0, green: 0, blue: 0, alpha: 0.6), &reader)
            if key == "outline" { overlay.outline = stroke } else { overlay.shadow = stroke }
        }
        // Fades must fit the time the overlay is shown, when that is known now.
        if let during = overlay.during, case let .seconds(s) = during.start, case let .seconds(e) = during.end,
           overlay.fadeIn + overlay.fadeOut > e - s, let fade = f["fade"] {
            reader.error("overlay fades (\(overlay.fadeIn)s in + \(overlay.fadeOut)s out) are longer than its during range (\(e - s)s)", at: fade.location)
        }
        return content == nil ? nil : overlay
    }

    /// `move: { from: top-left, to: bottom-right, duration: 10 }`; `from` defaults to the anchor.
    private static func decodeMove(_ node: RecipeNode, from anchor: Anchor, _ reader: inout RecipeReader) -> Overlay.Move? {
        guard let f = reader.fields(node, "overlay move", allowed: ["from", "to", "duration"]) else { return nil }
        let from = f["from"].flatMap { reader.choice($0, "overlay move from", Anchor.self) } ?? anchor
        guard let toNode = f["to"] else {
            reader.error("overlay move needs to: ANCHOR (where it ends up)", at: node.location)
            return nil
        }
        guard let to = reader.choice(toNode, "overlay move to", Anchor.self) else { return nil }
        var duration: MediaTime?
        if let n = f["duration"] {
            guard let d = reader.duration(n, "overlay move duration") else { return nil }
            guard d > .zero else {
                reader.error("overlay move duration must be > 0", at: n.location)
                return nil
            }
            duration = d
        }
        return Overlay.Move(from: from, to: to, duration: duration)
    }

    /// `outline: 2`, `outline: { width: 2, color: "#000" }`; `shadow: 2`, `shadow: { offset: 2, color: ... }`.
    private static func decodeStroke(_ node: RecipeNode, _ key: String, defaultColor: Color, _ reader: inout RecipeReader) -> Overlay.Stroke? {
        let sizeKey = key == "outline" ? "width" : "offset"
        let sizeNode: RecipeNode?, colorNode: RecipeNode?
        if case .mapping = node {
            guard let f = reader.fields(node, "overlay \(key)", allowed: [sizeKey, "color"]) else { return nil }
            sizeNode = f[sizeKey]
            colorNode = f["color"]
        } else {
            sizeNode = node
            colorNode = nil
        }
        var size = Length.pixels(2)
        if let sizeNode {
            guard let parsed = reader.length(sizeNode, "overlay \(key) \(sizeKey)") else { return nil }
            guard parsed.magnitude > 0, parsed.magnitude <= 100 else {
                reader.error("overlay \(key) \(sizeKey) must be > 0 and at most 100", at: sizeNode.location)
                return nil
            }
            size = parsed
        }
        let color = colorNode.flatMap { reader.color($0, "overlay \(key) color") } ?? defaultColor
        return Overlay.Stroke(size: size, color: color)
    }

    /// `frames: logo_%02d.png` (printf-style number, from 0 or 1 upward while files exist)
    /// with `fps` (default 12).
    private static func decodeImageSequence(_ node: RecipeNode, fps fpsNode: RecipeNode?, _ reader: inout RecipeReader,
                                            _ resolver: AssetResolver) -> Overlay.Content? {
        guard let pattern = reader.string(node, "overlay frames") else { return nil }
        guard let range = pattern.range(of: #"%0?[0-9]*d"#, options: .regularExpression) else {
            reader.error("overlay frames needs a number pattern such as logo_%02d.png (got \"\(pattern)\")", at: node.location)
            return nil
        }
        let ext = (pattern.split(separator: ".").last.map { $0.lowercased() }) ?? ""
        guard ["png", "jpg", "jpeg"].contains(ext) else {
            reader.error("overlay frames must be PNG or JPEG files (got \"\(pattern)\")", at: node.location)
            return nil
        }
        let spec = String(pattern[range])
        let width = Int(spec.dropFirst().dropLast().drop { $0 == "0" }) ?? 0
        func name(_ n: Int) -> String {
            let digits = String(n)
            return pattern.replacingCharacters(in: range, with: String(repeating: "0", count: max(0, width - digits.count)) + digits)
        }
        var paths: [String] = []
        for first in [0, 1] where paths.isEmpty {
            var n = first
            while case let .success(path) = resolver.resolve(name(n), recipeFile: node.location.file), paths.count < 10_000 {
                paths.append(path)
                n += 1
            }
        }
        guard !paths.isEmpty else {
            reader.error("overlay frames \(pattern): no \(name(0)) or \(name(1)) in the recipe's folder or the asset folders", at: node.location)
            return nil
        }
        var fps = 12.0
        if let fpsNode, let value = reader.number(fpsNode, "overlay fps", in: 0.1...120) { fps = value }
        return .imageSequence(paths, framesPerSecond: fps)
    }

    /// An overlay's image or text (with its font, size and colour); nil after an error.
    private static func decodeOverlayContent(_ f: Fields, _ node: RecipeNode, _ reader: inout RecipeReader,
                                             _ resolver: AssetResolver) -> Overlay.Content? {
        let content: Overlay.Content
        if let frames = f["frames"] {
            guard f["image"] == nil, f["text"] == nil else {
                reader.error("an overlay is an image, an image sequence (frames) or a text, not several", at: f.keyLocation("frames")!)
                return nil
            }
            return decodeImageSequence(frames, fps: f["fps"], &reader, resolver)
        }
        if f["fps"] != nil { reader.error("fps applies to image sequences (frames: name_%02d.png)", at: f.keyLocation("fps")!) }
        switch (f["image"], f["text"]) {
        case let (image?, nil):
            for key in ["font", "size", "color"] where f[key] != nil {
                reader.error("\(key) applies to text overlays, not images", at: f.keyLocation(key)!)
            }
            guard let path = reader.string(image, "overlay image") else { return nil }
            let ext = (path.split(separator: ".").last.map { $0.lowercased() }) ?? ""
            guard ["png", "jpg", "jpeg"].contains(ext) else {
                reader.error("overlay image must be a PNG or JPEG file (got \"\(path)\")", at: image.location)
                return nil
            }
            switch resolver.resolve(path, recipeFile: image.location.file) {
            case let .success(resolved): content = .image(resolved)
            case let .failure(failure):
                reader.error("overlay image \(failure)", at: image.location)
                return nil
            }
        case let (nil, text?):
            if f["width"] != nil { reader.error("width applies to image overlays; use size for text", at: f.keyLocation("width")!) }
            guard let raw = reader.string(text, "overlay text") else { return nil }
            let template: FilenameTemplate
            do { template = try FilenameTemplate(raw) } catch {
                reader.error("overlay text: \(error)", at: text.location)
                return nil
            }
            var fontPath = ""
            let fontNode = f["font"]
            let fontName = fontNode.flatMap { reader.string($0, "overlay font") } ?? "DejaVuSans.ttf"
            switch resolver.resolveFont(fontName, recipeFile: (fontNode ?? text).location.file) {
            case let .success(path): fontPath = path
            case let .failure(failure): reader.error("overlay font \(failure)", at: (fontNode ?? text).location)
            }
            let size = f["size"].flatMap { reader.length($0, "overlay size") } ?? .percent(4)
            if size.magnitude == 0 { reader.error("overlay size must be > 0", at: f["size"]!.location) }
            let color = f["color"].flatMap { reader.color($0, "overlay color") } ?? .white
            content = .text(template: template, font: fontPath, size: size, color: color)
        case (.some, .some):
            reader.error("an overlay is either an image or a text, not both", at: f.keyLocation("text")!)
            return nil
        case (nil, nil):
            reader.error("an overlay needs image: FILE or text: \"...\"", at: node.location)
            return nil
        }
        return content
    }

    private static func decodeMusic(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> Music? {
        guard let f = reader.fields(node, "music", allowed: ["source", "gain", "offset", "loop", "fade", "duck"]) else { return nil }
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
        if let n = f["gain"], let gain = reader.gain(n, "music.gain", in: -60...20) { music.gain = gain }
        if let n = f["loop"], let loop = reader.bool(n, "music.loop") { music.loop = loop }
        if let n = f["offset"], let offset = reader.duration(n, "music.offset") {
            if offset < .zero { reader.error("music.offset must not be negative (got \(offset)s)", at: n.location) } else { music.offset = offset }
        }
        if let n = f["fade"] { (music.fadeIn, music.fadeOut) = decodeFade(n, "music.fade", &reader) }
        if let n = f["duck"], let d = reader.fields(n, "music.duck", allowed: ["depth", "threshold", "attack", "release", "hold", "windows"]) {
            var duck = Duck()
            if let v = d["depth"], let depth = reader.gain(v, "music.duck.depth", in: -60...0) { duck.depth = depth }
            if let v = d["threshold"], let threshold = reader.gain(v, "music.duck.threshold", fullScale: true, in: -90...0) { duck.threshold = threshold }
            for (key, keyPath) in [("attack", \Duck.attack), ("release", \Duck.release)] {
                guard let v = d[key], let value = reader.duration(v, "music.duck.\(key)") else { continue }
                if value <= .zero || value > MediaTime(seconds: 10) {
                    reader.error("music.duck.\(key) must be between 0 and 10 seconds (got \(value)s)", at: v.location)
                } else {
                    duck[keyPath: keyPath] = value
                }
            }
            if let v = d["hold"], let hold = reader.duration(v, "music.duck.hold") {
                if hold < .zero || hold > MediaTime(seconds: 10) {
                    reader.error("music.duck.hold must be between 0 and 10 seconds (got \(hold)s)", at: v.location)
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
