import DropcutSubtitles
import DropcutTimeline

// `captions:` — where the cues come from and how they look.

extension Recipe {
    static func decodeCaptions(_ node: RecipeNode, _ reader: inout RecipeReader, _ resolver: AssetResolver) -> Captions? {
        guard let f = reader.fields(node, "captions", allowed: RecipeReference.allowedKeys(in: "captions")) else { return nil }
        var captions = Captions(font: "", location: node.location)
        if let n = f["source"], let name = reader.string(n, "captions.source") {
            if name == "embedded" {
                captions.source = .embedded
            } else if SubtitleFormat(fileName: name) != nil {
                switch resolver.resolve(name, recipeFile: n.location.file) {
                case let .success(path): captions.source = .file(path)
                case let .failure(failure): reader.error("captions.source \(failure)", at: n.location)
                }
            } else {
                reader.error("captions.source must be an .srt or .vtt file, or embedded (got '\(name)')", at: n.location)
            }
        }
        let style = f["style"].flatMap { reader.fields($0, "captions.style", allowed: RecipeReference.allowedKeys(in: "captions.style")) }
        let fontNode = style?["font"]
        let fontName = fontNode.flatMap { reader.string($0, "captions.style.font") } ?? Captions.defaultFont
        switch resolver.resolveFont(fontName, recipeFile: (fontNode ?? node).location.file) {
        case let .success(path): captions.font = path
        case let .failure(failure): reader.error("captions.style.font \(failure)", at: (fontNode ?? node).location)
        }
        guard let style else { return captions }
        if let n = style["size"], let size = reader.length(n, "captions.style.size") {
            if size.magnitude > 0 { captions.size = size } else { reader.error("captions.style.size must be > 0", at: n.location) }
        }
        if let n = style["color"], let color = reader.color(n, "captions.style.color") { captions.color = color }
        if let n = style["highlight"], let color = reader.color(n, "captions.style.highlight") { captions.highlight = color }
        if let n = style["background"], let color = reader.color(n, "captions.style.background") { captions.background = color }
        if let n = style["outline"] {
            captions.outline = decodeStroke(n, "outline", section: "captions.style", label: "captions.style", allowsZero: true,
                                            defaultColor: .black, &reader) ?? captions.outline
        }
        if let n = style["shadow"] {
            captions.shadow = decodeStroke(n, "shadow", section: "captions.style", label: "captions.style", allowsZero: true,
                                           defaultColor: Color(red: 0, green: 0, blue: 0, alpha: 0.6), &reader)
        }
        if let n = style["padding"], let padding = reader.length(n, "captions.style.padding") { captions.padding = padding }
        if let n = style["corner_radius"], let radius = reader.length(n, "captions.style.corner_radius") { captions.cornerRadius = radius }
        if let n = style["position"], let position = reader.choice(n, "captions.style.position", CaptionStyle.Position.self) { captions.position = position }
        if let n = style["max_lines"], let lines = reader.integer(n, "captions.style.max_lines", in: 1...RecipeLimits.maximumCaptionLines) {
            captions.maxLines = lines
        }
        if let n = style["max_width"], let width = reader.length(n, "captions.style.max_width") {
            if case let .percent(value) = width, (20...100).contains(value) {
                captions.maxWidth = value
            } else {
                reader.error("captions.style.max_width must be a percentage of the safe area's width, 20% to 100%", at: n.location)
            }
        }
        if let n = style["language"], let tag = reader.string(n, "captions.style.language") {
            if Self.isLanguageTag(tag) {
                captions.language = tag
            } else {
                reader.error("captions.style.language must be a BCP 47 language tag like en, ar, zh-Hant or pt-BR (got '\(tag.prefix(40))')", at: n.location)
            }
        }
        if let n = style["safe_area"] {
            if case let .scalar(text, _, _) = n, text.trimmingWhitespace() == "auto" {
                captions.safeArea = nil
            } else if let items = reader.list(n, "captions.style.safe_area") {
                let values = items.compactMap { item -> Double? in
                    guard let length = reader.length(item, "captions.style.safe_area") else { return nil }
                    guard case let .percent(value) = length, RecipeLimits.captionSafeAreaPercent.contains(value) else {
                        reader.error("captions.style.safe_area margins are percentages of the frame, 0% to 45%", at: item.location)
                        return nil
                    }
                    return value / 100
                }
                if items.count != 4 {
                    reader.error("captions.style.safe_area must be auto or four margins [top, right, bottom, left]", at: n.location)
                } else if values.count == 4 {
                    captions.safeArea = CaptionStyle.SafeArea(top: values[0], right: values[1], bottom: values[2], left: values[3])
                }
            }
        }
        return captions
    }

    /// A BCP 47 tag's shape: a 2- or 3-letter language, then subtags of 1 to 8 letters or
    /// digits, at most 35 characters (what HarfBuzz and the CJK face choice read).
    static func isLanguageTag(_ tag: String) -> Bool {
        guard tag.utf8.count <= 35 else { return false }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
