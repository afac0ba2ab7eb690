import DropcutTimeline

// `output:` — file name, size, fit, frame rate, deinterlacing, dynamic range, video and
// audio encoding.

extension Recipe {
    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    /// `base`: what the keys are merged into (`output:` for an `outputs:` entry).
    static func decodeOutput(_ node: RecipeNode, _ reader: inout RecipeReader, base: Output = Output()) -> Output {
        var output = base
        guard let f = reader.fields(node, "output", allowed: RecipeReference.allowedKeys(in: "output")) else { return output }
        if let n = f["filename"], let text = reader.string(n, "output.filename") {
            if text.utf8.count > RecipeLimits.maximumFilenameBytes {
                reader.error("output.filename must be at most \(RecipeLimits.maximumFilenameBytes) bytes, a file name's limit (got \(text.utf8.count))", at: n.location)
            } else if let problem = nameCharacterProblem(text, what: "output.filename") {
                reader.error(problem, at: n.location)
            } else {
                do {
                    let template = try FilenameTemplate(text)
                    let sample = template.render(.init(inputPath: "clip.mov", recipeName: "recipe"))
                    let ext = sample.split(separator: ".").last.map { $0.lowercased() } ?? ""
                    if text.contains("/") || template.usesInput {
                        reader.error("output.filename must be a file name without folders (the output goes to the outbox)", at: n.location)
                    } else if ContainerFormat(pathExtension: ext) == nil || !sample.contains(".") {
                        reader.error("output.filename must end in \(ContainerFormat.extensionList) (got \"\(text)\")", at: n.location)
                    } else {
                        output.filename = template
                    }
                } catch {
                    reader.error("output.filename: \(error)", at: n.location)
                }
            }
        }
        if let n = f["size"] {
            if case .scalar("source", _, _) = n {
                output.size = nil
                output.sizeBound = nil
            } else if let bound = decodeSizeBound(n, &reader) {
                output.size = nil
                output.sizeBound = bound
            } else if case .mapping = n {
                // decodeSizeBound reported it.
            } else if case let .scalar(text, _, _) = n, let size = PixelSizeParser.parse(text) {
                let sides = RecipeLimits.outputSide
                if !sides.contains(size.width) || !sides.contains(size.height) {
                    reader.error("output.size must be between \(sides.lowerBound) and \(sides.upperBound) pixels a side (got \(text.trimmingWhitespace()))", at: n.location)
                } else if !size.isEven {
                    reader.error("output.size must have even width and height for 4:2:0 video (got \(size))", at: n.location)
                } else {
                    output.size = size
                    output.sizeBound = nil
                }
            } else {
                reader.error("output.size must be WIDTHxHEIGHT (like 1080x1920), a class (480p, 720p, 1080p, 2160p), { max: WIDTHxHEIGHT } or source; got \(reader.describe(n))", at: n.location)
            }
        }
        if let n = f["fit"] { output.fit = reader.choice(n, "output.fit", ContentMode.self) ?? .fit }
        if let n = f["smart"], let s = reader.fields(n, "output.smart", allowed: RecipeReference.allowedKeys(in: "output.smart")) {
            if let n = s["subject"], let subject = reader.choice(n, "output.smart.subject", SmartFit.Subject.self) { output.smart.subject = subject }
            if let n = s["smoothness"], let value = reader.number(n, "output.smart.smoothness", in: SmartFit.smoothnessRange) { output.smart.smoothness = value }
        }
        if let n = f["fps"] {
            if case .scalar("source", _, _) = n {
                output.fps = nil
            } else if case let .scalar(text, _, _) = n, let rate = MediaTime(exactly: text.trimmingWhitespace()) {
                let limits = RecipeLimits.frameRate
                if rate < MediaTime(seconds: limits.lowerBound) || rate > MediaTime(seconds: limits.upperBound) {
                    reader.error("output.fps must be between \(limits.lowerBound) and \(limits.upperBound) (got \(text))", at: n.location)
                } else {
                    output.fps = rate
                }
            } else if case let .scalar(text, _, _) = n,
                      RecipeTime.isTooLarge(text, limit: Double(RecipeLimits.frameRate.upperBound)) {
                // `1e19`, `inf`, twenty digits: a number, just not one a rate can hold.
                reader.error("output.fps must be between \(RecipeLimits.frameRate.lowerBound) and \(RecipeLimits.frameRate.upperBound) (got \(text))", at: n.location)
            } else {
                reader.error("output.fps must be a frame rate (30, 29.97, 30000/1001) or source; got \(reader.describe(n))", at: n.location)
            }
        }
        if let n = f["captions"] { output.captions = reader.choice(n, "output.captions", CaptionMode.self) ?? .burn }
        if let n = f["deinterlace"] { output.deinterlace = reader.choice(n, "output.deinterlace", Deinterlace.self) ?? .auto }
        if let n = f["dynamic_range"] { output.dynamicRange = reader.choice(n, "output.dynamic_range", DynamicRange.self) ?? .sdr }
        if let n = f["video"], let v = reader.fields(n, "output.video", allowed: RecipeReference.allowedKeys(in: "output.video")) {
            if let c = v["codec"], let codec = reader.choice(c, "output.video.codec", VideoCodec.Codec.self) {
                output.video.codec = codec
                output.video.codecIsExplicit = true
                // HDR is written as HEVC Main 10 (with HLG's SEI, which x264 cannot write):
                // asking for H.264 as well is a contradiction to point out, not to overrule.
                if !codec.carriesHDR, output.dynamicRange != .sdr, let range = f["dynamic_range"] {
                    let hdr = VideoCodecID.hdr.rawValue
                    reader.error("output.dynamic_range: \(output.dynamicRange.rawValue) needs output.video.codec: \(hdr) (HDR is written as HEVC Main 10); "
                                 + "leave the codec out or set it to \(hdr) (got \(codec.rawValue) at \(c.location.line):\(c.location.column))", at: range.location)
                }
            }
            if let c = v["reencode"] { output.video.reencode = reader.choice(c, "output.video.reencode", Reencode.self) ?? .auto }
            if let c = v["crf"] { output.video.crf = reader.integer(c, "output.video.crf", in: RecipeLimits.crf) ?? output.video.crf }
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
        if let n = f["audio"], let a = reader.fields(n, "output.audio", allowed: RecipeReference.allowedKeys(in: "output.audio")) {
            if let c = a["loudness"] {
                // -16LUFS, -16 LUFS or -16.
                if case let .scalar(text, _, _) = c, let value = Double(text.trimmingWhitespace().uppercased().replacingOccurrences(of: "LUFS", with: "").trimmingWhitespace()) {
                    if RecipeLimits.loudness.contains(value) {
                        output.audio.loudness = value
                    } else {
                        reader.error("output.audio.loudness must be between \(formatNumber(RecipeLimits.loudness.lowerBound))LUFS and \(formatNumber(RecipeLimits.loudness.upperBound))LUFS (got \(text))", at: c.location)
                    }
                } else {
                    reader.error("output.audio.loudness must be a loudness like -16LUFS; got \(reader.describe(c))", at: c.location)
                }
            }
            if let c = a["codec"] { output.audio.codec = reader.choice(c, "output.audio.codec", AudioCodec.Codec.self) ?? .aac }
            if let c = a["bitrate"] {
                if case let .scalar(text, _, _) = c, let bits = BitrateParser.parse(text) {
                    // Checked as a Double, before it becomes an Int: `1e19` has no Int.
                    let limits = RecipeLimits.audioBitrate
                    if bits >= Double(limits.lowerBound), bits <= Double(limits.upperBound) {
                        output.audio.bitrate = Int(bits.rounded())
                    } else {
                        reader.error("output.audio.bitrate must be between \(RecipeLimits.bitrateText(limits.lowerBound)) and \(RecipeLimits.bitrateText(limits.upperBound)) (got \(text))", at: c.location)
                    }
                } else {
                    reader.error("output.audio.bitrate must be a bit rate like 160k; got \(reader.describe(c))", at: c.location)
                }
            }
        }
        return output
    }
}
