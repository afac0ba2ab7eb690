import Timeline

// `output:` — file name, size, fit, frame rate, video and audio encoding.

extension Recipe {
    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    static func decodeOutput(_ node: RecipeNode, _ reader: inout RecipeReader) -> Output {
        var output = Output()
        guard let f = reader.fields(node, "output", allowed: RecipeReference.allowedKeys(in: "output")) else { return output }
        if let n = f["filename"], let text = reader.string(n, "output.filename") {
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
        if let n = f["size"] {
            if case .scalar("source", _, _) = n {
                output.size = nil
            } else if case let .scalar(text, _, _) = n, let size = PixelSizeParser.parse(text) {
                if !(16...8192).contains(size.width) || !(16...8192).contains(size.height) {
                    reader.error("output.size must be between 16 and 8192 pixels a side (got \(size))", at: n.location)
                } else if !size.isEven {
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
        if let n = f["video"], let v = reader.fields(n, "output.video", allowed: RecipeReference.allowedKeys(in: "output.video")) {
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
        if let n = f["audio"], let a = reader.fields(n, "output.audio", allowed: RecipeReference.allowedKeys(in: "output.audio")) {
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
}
