import DropcutTimeline

extension Recipe {
    /// The recipe format version this dropcut reads.
    package static let supportedVersion = 1

    /// Decodes and checks a (possibly merged) recipe tree. Every problem is reported, in
    /// file order, with its position; asset paths are resolved through `resolver`
    /// against the folder of the file each path was written in.
    package static func decode(_ root: RecipeNode, name: String, resolver: AssetResolver) throws(RecipeError) -> Recipe {
        var reader = RecipeReader()
        var recipe = Recipe(name: name)
        guard let top = reader.fields(root, "the recipe", allowed: RecipeReference.allowedKeys(in: "")) else { throw RecipeError(reader.diagnostics) }

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
        if let node = top["outputs"] { recipe.outputs = decodeOutputs(node, base: recipe.output, &reader) }
        if let node = top["orientation"] { recipe.orientation = decodeOrientation(node, &reader) }
        if let node = top["clips"] { recipe.clips = decodeClips(node, &reader, resolver) }
        if let node = top["transition"] { recipe.transition = decodeTransition(node, &reader) }
        if let node = top["overlays"] {
            var layers = 0
            recipe.overlays = reader.list(node, "overlays")?.compactMap { decodeOverlay($0, &reader, resolver, depth: 0, layers: &layers) } ?? []
        }
        // Against the output's size when the recipe sets it, else the largest output: the
        // builder checks again once the source gives the size.
        let side = RecipeLimits.outputSide.upperBound
        for problem in OverlaySizeCheck.problems(in: recipe.overlays, output: recipe.output.size ?? PixelSize(width: side, height: side)) {
            reader.error(problem.message, at: problem.location)
        }
        // Each deliverable of its own size too (the same problem is reported once).
        var reported = Set(reader.diagnostics)
        for size in Set(recipe.outputs.compactMap(\.output.size)) where size != recipe.output.size {
            for problem in OverlaySizeCheck.problems(in: recipe.overlays, output: size) {
                let diagnostic = RecipeDiagnostic(problem.message, at: problem.location)
                if reported.insert(diagnostic).inserted { reader.error(problem.message, at: problem.location) }
            }
        }
        if let node = top["music"] { recipe.music = decodeMusic(node, &reader, resolver) }
        if let node = top["audio"] { recipe.audio = decodeAudioItems(node, &reader, resolver) }
        if let node = top["captions"] { recipe.captions = decodeCaptions(node, &reader, resolver) }
        if let node = top["original_audio"] { recipe.originalAudio = reader.choice(node, "original_audio", OriginalAudio.self) ?? .keep }

        let diagnostics = reader.diagnostics.sorted { ($0.location.file, $0.location.line, $0.location.column) < ($1.location.file, $1.location.line, $1.location.column) }
        if !diagnostics.isEmpty { throw RecipeError(diagnostics) }
        return recipe
    }

    // MARK: Small and shared sections
    // (The others, one file each: RecipeDecoding+Output, +Clips, +Transition, +Overlays, +Music, +Audio.)

    static func decodeOrientation(_ node: RecipeNode, _ reader: inout RecipeReader) -> Orientation {
        if case let .scalar(text, _, _) = node {
            let t = text.trimmingWhitespace()
            if t == "auto" { return .auto }
            if t == "keep" { return .keep }
            if let degrees = Int(t), [0, 90, 180, 270].contains(degrees) { return .degrees(degrees) }
        }
        reader.error("orientation must be auto, keep, 0, 90, 180 or 270; got \(reader.describe(node))", at: node.location)
        return .auto
    }

    /// `fade: { in: 0.5, out: 1.0 }`, shared by overlays and the music; `section` is its
    /// path in `RecipeReference` (`music.fade`).
    static func decodeFade(_ node: RecipeNode, _ what: String, section: String, _ reader: inout RecipeReader) -> (MediaTime, MediaTime) {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: section)) else { return (.zero, .zero) }
        let fadeIn = f["in"].flatMap { reader.duration($0, "\(what).in") } ?? .zero
        let fadeOut = f["out"].flatMap { reader.duration($0, "\(what).out") } ?? .zero
        return (fadeIn, fadeOut)
    }
}
