import DropcutTimeline

// `overlays:` — images, image sequences and text, with placement, timing, motion and strokes.

extension Recipe {
    /// One overlay `depth` groups deep (0: in `overlays:` itself); `layers` counts the
    /// overlays read so far, groups and their children alike, against
    /// `RecipeLimits.maximumOverlayLayers`.
    static func decodeOverlay(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver,
                              depth: Int, layers: inout Int) -> Overlay? {
        layers += 1
        guard layers <= RecipeLimits.maximumOverlayLayers else {
            // Said once, at the first overlay past the bound: the rest are not read.
            if layers == RecipeLimits.maximumOverlayLayers + 1 {
                reader.error("a recipe holds at most \(RecipeLimits.maximumOverlayLayers) overlays, groups and the overlays inside them counted", at: node.location)
            }
            return nil
        }
        guard let f = reader.fields(node, "overlay", allowed: RecipeReference.allowedKeys(in: "overlays[]")) else { return nil }
        let content = f["group"] != nil ? decodeGroup(f, &reader, resolver, depth: depth, layers: &layers) : decodeOverlayContent(f, node, &reader, resolver)
        if f["group"] == nil, f["bounds"] != nil { reader.error("bounds applies to groups (group: [ ... ])", at: f.keyLocation("bounds")!) }
        // Read the other keys even when the content is bad, so every error shows at once.
        var overlay = Overlay(content: content ?? .image(""), location: node.location)
        if let n = f["anchor"] { overlay.anchor = reader.choice(n, "overlay anchor", Anchor.self) ?? overlay.anchor }
        if let n = f["margin"], let margin = reader.length(n, "overlay margin") { overlay.margin = margin }
        if let n = f["width"], let width = reader.length(n, "overlay width") {
            if width.magnitude == 0 { reader.error("overlay width must be > 0", at: n.location) } else { overlay.width = width }
        }
        if let n = f["opacity"], let opacity = reader.number(n, "overlay opacity", in: 0...1) { overlay.opacity = opacity }
        if let n = f["fade"] { (overlay.fadeIn, overlay.fadeOut) = decodeFade(n, "overlay fade", section: "overlays[].fade", &reader) }
        if let n = f["during"] { overlay.during = reader.closedRange(n, "overlay during") }
        if let n = f["move"] { overlay.move = decodeMove(n, from: overlay.anchor, &reader) }
        if let n = f["rotate"], let degrees = reader.number(n, "overlay rotate (degrees)", in: RecipeLimits.rotationDegrees) { overlay.rotate = degrees }
        if let n = f["spin"] { overlay.spin = decodeSpin(n, &reader) }
        if let n = f["bounce"], let property = reader.choice(n, "overlay bounce", Overlay.Animation.Property.self) {
            if property == .scale || property == .position { overlay.bounce = property } else {
                reader.error("overlay bounce must be scale or position (got '\(property.rawValue)')", at: n.location)
            }
        }
        if let n = f["animate"] {
            overlay.animations = decodeOverlayAnimations(n, &reader)
            // Two sources for one position: say so rather than silently prefer one.
            if overlay.move != nil, let position = overlay.animations.first(where: { $0.property == .position }) {
                reader.error("an overlay moves with move or with a position animation, not both", at: position.location)
            }
            if let bounce = overlay.bounce, let clash = overlay.animations.first(where: { $0.property == bounce }) {
                reader.error("bounce already animates \(bounce.rawValue); drop one of the two", at: clash.location)
            }
        }
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

    /// `group: [ overlays ]` with `bounds: [w, h]`, `depth` groups deep: groups nest, as
    /// CALayers do, up to `RecipeLimits.maximumGroupDepth`.
    private static func decodeGroup(_ f: Fields, _ reader: inout RecipeReader, _ resolver: AssetResolver,
                                    depth: Int, layers: inout Int) -> Overlay.Content? {
        guard let groupNode = f["group"], let groupKey = f.keyLocation("group") else { return nil }
        guard depth < RecipeLimits.maximumGroupDepth else {
            reader.error("groups nest at most \(RecipeLimits.maximumGroupDepth) deep (this one is \(depth + 1) deep)", at: groupKey)
            return nil
        }
        for key in ["image", "frames", "text", "fps", "font", "size", "color", "width", "outline", "shadow"] where f[key] != nil {
            reader.error("\(key) does not apply to a group; put it on an overlay inside it", at: f.keyLocation(key)!)
        }
        var width: Length?, height: Length?
        if let n = f["bounds"], let items = reader.list(n, "group bounds") {
            if items.count != 2 {
                reader.error("group bounds must be [width, height] (got \(items.count) values)", at: n.location)
            } else {
                width = reader.length(items[0], "group bounds width")
                height = reader.length(items[1], "group bounds height")
                for (value, item) in [(width, items[0]), (height, items[1])] where value?.magnitude == 0 {
                    reader.error("group bounds must be > 0", at: item.location)
                }
            }
        }
        guard let items = reader.list(groupNode, "overlay group") else { return nil }
        guard !items.isEmpty else {
            reader.error("overlay group must hold at least one overlay", at: groupNode.location)
            return nil
        }
        var children: [Overlay] = []
        for item in items {
            if let child = decodeOverlay(item, &reader, resolver, depth: depth + 1, layers: &layers) { children.append(child) }
        }
        return children.count == items.count ? .group(children, width: width, height: height) : nil
    }

    /// `move: { from: top-left, to: bottom-right, duration: 10 }`; `from` defaults to the anchor.
    private static func decodeMove(_ node: RecipeNode, from anchor: Anchor, _ reader: inout RecipeReader) -> Overlay.Move? {
        guard let f = reader.fields(node, "overlay move", allowed: RecipeReference.allowedKeys(in: "overlays[].move")) else { return nil }
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

    /// `spin: { axis: y, degrees: 45, perspective: 500 }`.
    private static func decodeSpin(_ node: RecipeNode, _ reader: inout RecipeReader) -> Overlay.Spin? {
        guard let f = reader.fields(node, "overlay spin", allowed: RecipeReference.allowedKeys(in: "overlays[].spin")) else { return nil }
        var spin = Overlay.Spin()
        if let n = f["axis"] { spin.axis = reader.choice(n, "overlay spin axis", ProjectiveTransform.Axis.self) ?? spin.axis }
        if let n = f["degrees"], let d = reader.number(n, "overlay spin degrees", in: RecipeLimits.rotationDegrees) { spin.degrees = d }
        if let n = f["perspective"], let d = reader.number(n, "overlay spin perspective (pixels)", in: RecipeLimits.spinPerspective) { spin.perspective = d }
        return spin
    }

    /// `outline: 2`, `outline: { width: 2, color: "#000" }`; `shadow: 2`, `shadow: { offset: 2, color: ... }`.
    /// `section` is where the key lives (`overlays[]`, `captions.style`), `label` how messages
    /// name its owner; with `allowsZero`, `0` is a stroke of no width (none).
    static func decodeStroke(_ node: RecipeNode, _ key: String, section: String = "overlays[]", label: String = "overlay",
                             allowsZero: Bool = false, defaultColor: Color, _ reader: inout RecipeReader) -> Overlay.Stroke? {
        let sizeKey = key == "outline" ? "width" : "offset"
        let sizeNode: RecipeNode?, colorNode: RecipeNode?
        if case .mapping = node {
            guard let f = reader.fields(node, "\(label) \(key)", allowed: RecipeReference.allowedKeys(in: "\(section).\(key)")) else { return nil }
            sizeNode = f[sizeKey]
            colorNode = f["color"]
        } else {
            sizeNode = node
            colorNode = nil
        }
        var size = Length.pixels(2)
        if let sizeNode {
            guard let parsed = reader.length(sizeNode, "\(label) \(key) \(sizeKey)") else { return nil }
            guard parsed.magnitude > 0 || (allowsZero && parsed.magnitude == 0), parsed.magnitude <= RecipeLimits.maximumStroke else {
                reader.error("\(label) \(key) \(sizeKey) must be \(allowsZero ? "at least 0" : "> 0") and at most \(formatNumber(RecipeLimits.maximumStroke))", at: sizeNode.location)
                return nil
            }
            size = parsed
        }
        let color = colorNode.flatMap { reader.color($0, "\(label) \(key) color") } ?? defaultColor
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
        // The number's width pads every name: `%0999999999999d` asked for a terabyte-long
        // name (and a width past Int was silently 0).
        let digits = spec.dropFirst().dropLast().drop { $0 == "0" }
        guard digits.count <= 2, (Int(digits) ?? 0) <= RecipeLimits.maximumFrameNumberWidth else {
            reader.error("overlay frames: the number in \(spec) must be at most \(RecipeLimits.maximumFrameNumberWidth) digits wide (got \"\(pattern)\")", at: node.location)
            return nil
        }
        let width = Int(digits) ?? 0
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
        if let fpsNode, let value = reader.number(fpsNode, "overlay fps", in: RecipeLimits.sequenceFrameRate) { fps = value }
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
            guard raw.utf8.count <= RecipeLimits.maximumTextBytes else {
                reader.error("overlay text must be at most \(RecipeLimits.maximumTextBytes) bytes (got \(raw.utf8.count))", at: text.location)
                return nil
            }
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
}
