import Foundation
import DropcutTimeline

// `outputs:` — several deliverables from one drop — and the size bounds (`size: 1080p`,
// `size: { max: 1920x1080 }`).

extension Recipe {
    /// `1080p` or `{ max: WIDTHxHEIGHT }`; nil (and no error) for anything else but a
    /// mapping, whose mistakes are reported here.
    static func decodeSizeBound(_ node: RecipeNode, _ reader: inout RecipeReader) -> OutputSizeBound? {
        switch node {
        case let .scalar(text, _, _):
            return OutputSizeBound.sizeClass(named: text.trimmingWhitespace())
        case .mapping:
            guard let f = reader.fields(node, "output.size", allowed: RecipeReference.allowedKeys(in: "output.size")) else { return nil }
            guard let n = f["max"] else {
                reader.error("output.size as a mapping needs max: WIDTHxHEIGHT (like { max: 1920x1080 })", at: node.location)
                return nil
            }
            guard case let .scalar(text, _, _) = n, let size = PixelSizeParser.parse(text) else {
                reader.error("output.size.max must be WIDTHxHEIGHT (like 1920x1080); got \(reader.describe(n))", at: n.location)
                return nil
            }
            let sides = RecipeLimits.outputSide
            guard sides.contains(size.width), sides.contains(size.height) else {
                reader.error("output.size.max must be between \(sides.lowerBound) and \(sides.upperBound) pixels a side (got \(text.trimmingWhitespace()))", at: n.location)
                return nil
            }
            guard size.isEven else {
                reader.error("output.size.max must have even width and height for 4:2:0 video (got \(size))", at: n.location)
                return nil
            }
            return .max(size)
        case .sequence:
            return nil
        }
    }

    /// `outputs:` — at most `RecipeLimits.maximumOutputs` entries, each `output` merged with
    /// the entry's keys; file names distinct (as rendered for a sample clip) and their
    /// extensions those of the entry's kind.
    static func decodeOutputs(_ node: RecipeNode, base: Output, _ reader: inout RecipeReader) -> [Deliverable] {
        guard let items = reader.list(node, "outputs") else { return [] }
        if items.isEmpty {
            reader.error("outputs must list at least one deliverable (leave it out for the one file output: describes)", at: node.location)
            return []
        }
        if items.count > RecipeLimits.maximumOutputs {
            reader.error("outputs may list at most \(RecipeLimits.maximumOutputs) deliverables (got \(items.count))", at: node.location)
            return []
        }
        var deliverables: [Deliverable] = []
        var names: [String: (index: Int, location: SourceLocation)] = [:]
        for (index, item) in items.enumerated() {
            let what = "outputs[\(index)]"
            guard let deliverable = decodeDeliverable(item, what: what, base: base, &reader) else { continue }
            let sample = deliverable.output.filename.render(.init(inputPath: "clip.mov", recipeName: "recipe")).lowercased()
            if let earlier = names[sample] {
                reader.error("\(what).filename \"\(deliverable.output.filename)\" names the same file as outputs[\(earlier.index)] "
                             + "(at \(earlier.location.line):\(earlier.location.column)): each deliverable needs its own filename", at: deliverable.location)
            } else if sample.hasSuffix(".dropcut.json") {
                reader.error("\(what).filename: .dropcut.json names the manifest", at: deliverable.location)
            } else {
                names[sample] = (index, deliverable.location)
            }
            deliverables.append(deliverable)
        }
        return deliverables
    }

    private static func decodeDeliverable(_ node: RecipeNode, what: String, base: Output, _ reader: inout RecipeReader) -> Deliverable? {
        let outputKeys = RecipeReference.allowedKeys(in: "output")
        guard case let .mapping(allEntries, location) = node else {
            _ = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "outputs[]"))
            return nil
        }
        let entries = allEntries
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "outputs[]")) else { return nil }
        // The output keys, the file name aside (its extension depends on the kind), go
        // through `output:`'s decoder, merged into `base`; its messages name the entry.
        let merged = RecipeNode.mapping(entries.filter { outputKeys.contains($0.key) && $0.key != "filename" }, at: location)
        let before = reader.diagnostics.count
        var output = decodeOutput(merged, &reader, base: base)
        reader.renameSubject(since: before, from: "output", to: what)
        if f["video"] != nil || f["dynamic_range"] != nil,
           output.dynamicRange != .sdr, output.video.codecIsExplicit, !output.video.codec.carriesHDR {
            reader.error("\(what): dynamic_range \(output.dynamicRange.rawValue) needs video.codec \(VideoCodecID.hdr.rawValue) "
                         + "(HDR is written as HEVC Main 10; got \(output.video.codec.rawValue))", at: location)
        }

        var kind = Deliverable.Kind.video
        if let n = f["filename"] {
            guard let template = decodeDeliverableFilename(n, what: "\(what).filename", &reader) else { return nil }
            output.filename = template
        }
        let sample = output.filename.render(.init(inputPath: "clip.mov", recipeName: "recipe"))
        let ext = sample.contains(".") ? String(sample.split(separator: ".").last ?? "") : ""
        let at = f["filename"]?.location ?? location
        let kinds = ["poster", "preview", "hls"].filter { f[$0] != nil }
        if kinds.count > 1 {
            reader.error("\(what) is one deliverable: give one of poster, preview or hls, not \(kinds.joined(separator: " and "))", at: location)
            return nil
        }
        if let n = f["hls"] {
            guard let ladder = decodeHLS(n, what: "\(what).hls", &reader) else { return nil }
            guard ext.lowercased() == "m3u8" else {
                reader.error("\(what).filename must end in .m3u8 for an HLS ladder (got \"\(output.filename)\"): "
                             + "it names the master playlist, and the folder of the ladder is named after it", at: at)
                return nil
            }
            kind = .hls(ladder)
            if output.captions == .soft {
                reader.error("\(what): captions: soft is a subtitle stream in a video file; an HLS ladder takes burn or none", at: f["captions"]?.location ?? location)
            }
        } else if let n = f["preview"] {
            guard var preview = decodePreview(n, what: "\(what).preview", &reader) else { return nil }
            guard let format = Preview.Format(rawValue: ext.lowercased()) else {
                reader.error("\(what).filename must end in .webp or .gif for a preview (got \"\(output.filename)\")", at: at)
                return nil
            }
            preview.format = format
            kind = .preview(preview)
            output.dynamicRange = .sdr
        } else if let n = f["poster"] {
            guard let time = decodePosterTime(n, what: "\(what).poster", &reader) else { return nil }
            guard let format = PictureFormat(pathExtension: ext) else {
                reader.error("\(what).filename must end in \(PictureFormat.extensionList) for a poster (got \"\(output.filename)\")", at: at)
                return nil
            }
            kind = .poster(Poster(time: time.time, format: format, location: time.location))
            // A picture is SDR: JPEG, PNG and WebP carry no HLG.
            output.dynamicRange = .sdr
        } else if ext.lowercased() == "vtt" {
            kind = .captions
        } else if ContainerFormat(pathExtension: ext) == nil {
            reader.error("\(what).filename must end in \(ContainerFormat.extensionList) for a video (got \"\(output.filename)\"); "
                         + "a picture needs poster: { at: ... }", at: at)
            return nil
        }
        return Deliverable(output: output, kind: kind, location: location)
    }

    /// Why a file name template holding a control character (`FilenameTemplate.controlCharacter`)
    /// or a line separator or bidi control (`LayoutCharacter`) is refused, naming it and
    /// where it is in the value; nil without one.
    static func nameCharacterProblem(_ text: String, what: String) -> String? {
        if let (scalar, offset) = FilenameTemplate.controlCharacter(in: text) {
            return "\(what) holds the control character \(FilenameTemplate.describe(scalar)) after \(offset) character(s); a file name cannot hold control characters"
        }
        if let (scalar, offset) = LayoutCharacter.first(in: text) {
            return "\(what) holds \(FilenameTemplate.describe(scalar)) after \(offset) character(s); a file name cannot hold "
                + "line separators or bidi controls (the name would not read as the file it is)"
        }
        return nil
    }

    /// A file name template without folders, at most a file name's length.
    private static func decodeDeliverableFilename(_ n: RecipeNode, what: String, _ reader: inout RecipeReader) -> FilenameTemplate? {
        guard let text = reader.string(n, what) else { return nil }
        guard text.utf8.count <= RecipeLimits.maximumFilenameBytes else {
            reader.error("\(what) must be at most \(RecipeLimits.maximumFilenameBytes) bytes, a file name's limit (got \(text.utf8.count))", at: n.location)
            return nil
        }
        if let problem = nameCharacterProblem(text, what: what) {
            reader.error(problem, at: n.location)
            return nil
        }
        do {
            let template = try FilenameTemplate(text)
            let sample = template.render(.init(inputPath: "clip.mov", recipeName: "recipe"))
            guard !text.contains("/"), !template.usesInput else {
                reader.error("\(what) must be a file name without folders (the outputs go beside each other)", at: n.location)
                return nil
            }
            guard sample.contains("."), !sample.hasPrefix(".") else {
                reader.error("\(what) must end in an extension (got \"\(text)\")", at: n.location)
                return nil
            }
            return template
        } catch {
            reader.error("\(what): \(error)", at: n.location)
            return nil
        }
    }

    /// `preview: { from: 0s, duration: 3s, width: 320, fps: 10 }`.
    private static func decodePreview(_ node: RecipeNode, what: String, _ reader: inout RecipeReader) -> Preview? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "outputs[].preview")) else { return nil }
        var ok = true
        let from = f["from"].map { n -> MediaTime in
            guard let t = reader.duration(n, "\(what).from") else { ok = false; return .zero }
            return t
        } ?? .zero
        var duration = MediaTime(seconds: 3)
        if let n = f["duration"] {
            if let t = reader.duration(n, "\(what).duration") {
                if t <= .zero || t > MediaTime(seconds: RecipeLimits.maximumPreviewSeconds) {
                    reader.error("\(what).duration must be more than 0 and at most \(RecipeLimits.maximumPreviewSeconds) s (got \(formatNumber(t.seconds)))", at: n.location)
                    ok = false
                } else {
                    duration = t
                }
            } else {
                ok = false
            }
        }
        var width = 320
        if let n = f["width"] {
            if let w = reader.integer(n, "\(what).width", in: RecipeLimits.previewWidth) {
                if w % 2 != 0 {
                    reader.error("\(what).width must be even for 4:2:0 pictures (got \(w))", at: n.location)
                    ok = false
                } else {
                    width = w
                }
            } else {
                ok = false
            }
        }
        var fps = 10
        if let n = f["fps"] {
            if let r = reader.integer(n, "\(what).fps", in: RecipeLimits.previewFrameRate) { fps = r } else { ok = false }
        }
        return ok ? Preview(from: from, duration: duration, width: width, fps: fps, at: node.location) : nil
    }

    /// `hls: { heights: [1080, 720, 480], segment: 4s }`.
    private static func decodeHLS(_ node: RecipeNode, what: String, _ reader: inout RecipeReader) -> HLSLadder? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "outputs[].hls")) else { return nil }
        var ok = true
        var heights: [Int] = []
        if let n = f["heights"] {
            if let items = reader.list(n, "\(what).heights") {
                if items.isEmpty || items.count > RecipeLimits.maximumHLSRungs {
                    reader.error("\(what).heights must list 1 to \(RecipeLimits.maximumHLSRungs) heights (got \(items.count))", at: n.location)
                    ok = false
                }
                for item in items.prefix(RecipeLimits.maximumHLSRungs) {
                    guard let height = reader.integer(item, "\(what).heights[]", in: RecipeLimits.hlsHeight) else { ok = false; continue }
                    if height % 2 != 0 {
                        reader.error("\(what).heights: \(height) must be even for 4:2:0 video", at: item.location)
                        ok = false
                    } else if heights.contains(height) {
                        reader.error("\(what).heights lists \(height) twice", at: item.location)
                        ok = false
                    } else {
                        heights.append(height)
                    }
                }
            } else {
                ok = false
            }
        } else {
            reader.error("\(what) needs heights: the rungs of the ladder (like [1080, 720, 480])", at: node.location)
            ok = false
        }
        var segment = MediaTime(seconds: 6)
        if let n = f["segment"] {
            if let t = reader.duration(n, "\(what).segment") {
                let range = RecipeLimits.hlsSegmentSeconds
                if t < MediaTime(seconds: range.lowerBound) || t > MediaTime(seconds: range.upperBound) {
                    reader.error("\(what).segment must be \(range.lowerBound) to \(range.upperBound) s (got \(formatNumber(t.seconds)))", at: n.location)
                    ok = false
                } else {
                    segment = t
                }
            } else {
                ok = false
            }
        }
        return ok ? HLSLadder(heights: heights.sorted(by: >), segment: segment, location: node.location) : nil
    }

    /// `poster: { at: 2s }` or `poster: { at: best }`.
    private static func decodePosterTime(_ node: RecipeNode, what: String, _ reader: inout RecipeReader) -> (time: Poster.Time, location: SourceLocation)? {
        guard let f = reader.fields(node, what, allowed: RecipeReference.allowedKeys(in: "outputs[].poster")) else { return nil }
        guard let n = f["at"] else {
            reader.error("\(what) needs at: a time (like 2s) or best", at: node.location)
            return nil
        }
        if case let .scalar(text, _, _) = n, text.trimmingWhitespace() == "best" { return (.best, n.location) }
        guard let time = reader.duration(n, "\(what).at") else { return nil }
        return (.at(time), n.location)
    }
}
