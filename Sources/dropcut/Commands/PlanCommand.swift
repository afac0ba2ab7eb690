import ArgumentParser
import Foundation
import DropcutPipeline
import DropcutRecipe
import DropcutTimeline

/// `dropcut plan [--recipe R] [--svg FILE] [--assets DIR]... INPUT...`: prints the
/// composition a recipe builds for each input — tracks, segments with source -> target
/// ranges and speeds, video instructions, volume ramps, overlays — and optionally draws
/// it as an SVG timeline. Nothing is rendered.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Print the composition a recipe builds and which streams would be copied, without rendering.")

    @OptionGroup var options: RecipeOptions
    @Option(name: .long, help: "Also draw the timeline as SVG into this file (one input only).") var svg: String?

    func validate() throws {
        if svg != nil && options.inputs.count != 1 {
            throw ValidationError("--svg draws one timeline: give exactly one input")
        }
    }

    func run() async throws {
        // FFmpeg's own lines never come before dropcut's message (which has its detail line).
        _ = EngineMessages(verbose: false, quiet: false).install()
        let recipe = try options.loadRecipe(command: "plan")
        var failed = false
        for input in options.inputs {
            if !recipe.outputs.isEmpty {
                let deliverables: Deliverables
                do {
                    deliverables = try await Deliverables.prepare(recipe: recipe, input: input)
                } catch {
                    printError("dropcut plan: \(error)")
                    failed = true
                    continue
                }
                print(Self.describe(deliverables), terminator: "")
                // The timeline drawn is the first deliverable's (the others differ in size
                // and encoding, not in timing).
                if let svg, let first = deliverables.items.first?.production {
                    let drawing = TimelineSVG.render(
                        composition: first.composition, videoComposition: first.videoComposition, audioMix: first.audioMix,
                        title: "\(input) -> \(deliverables.items.map(\.filename).joined(separator: ", "))",
                        envelope: first.clipLevels.map {
                            TimelineSVG.LevelEnvelope(window: $0.window, decibels: $0.decibels, tracks: first.music?.trackIDs ?? [])
                        },
                        overlays: first.overlays)
                    do {
                        try Data(Self.withCameraPaths(drawing, first.reframings).utf8).write(to: URL(fileURLWithPath: svg))
                    } catch {
                        printError("dropcut plan: cannot write \(svg): \(error.localizedDescription)")
                        throw ExitCode(1)
                    }
                }
                continue
            }
            let production: Production
            do {
                production = try await Production.prepare(recipe: recipe, input: input)
            } catch {
                printError("dropcut plan: \(error)")
                failed = true
                continue
            }
            print("\(input) -> \(production.outputFilename)")
            for sidecar in production.slowMotionSidecars { print(Self.describe(sidecar)) }
            if let source = production.captionSource {
                let mode = production.settings.softCaptions.isEmpty
                    ? (production.overlays.contains { if case .captions = $0.content { return true } else { return false } } ? "burnt in" : "not used (captions: none)")
                    : "a mov_text subtitle stream (captions: soft)"
                print("captions from \(source), timed as the clip's frames are placed: \(mode)")
                for warning in production.captionWarnings { print("  warning: \(warning)") }
                // Burnt in, the overlay lines below list the cues; otherwise here.
                if let track = production.captions, !production.overlays.contains(where: { if case .captions = $0.content { return true } else { return false } }) {
                    print(Self.describe(track))
                }
            }
            print(TimelineDescription.text(composition: production.composition, videoComposition: production.videoComposition,
                                           audioMix: production.audioMix), terminator: "")
            for overlay in production.overlays { print(Self.describe(overlay)) }
            for line in production.passThrough.lines { print(line) }
            for line in production.reframings.flatMap(\.lines) { print(line) }
            for item in production.audioItems { print(Self.describe(item, music: production.music != nil)) }
            if let music = production.music, let duck = music.duck {
                let items = production.audioItems.contains(where: \.ducksMusic) ? " and the audio items" : ""
                print(Self.describe(duck, of: music, alsoUnder: items))
            }
            if let music = production.music, music.duck == nil, !music.duckedRanges.isEmpty {
                print(Self.describe(Recipe.Duck(), of: music, under: "the audio items"))
            }
            if let svg {
                let drawing = TimelineSVG.render(
                    composition: production.composition, videoComposition: production.videoComposition,
                    audioMix: production.audioMix, title: "\(input) -> \(production.outputFilename)",
                    envelope: production.clipLevels.map {
                        TimelineSVG.LevelEnvelope(window: $0.window, decibels: $0.decibels, tracks: production.music?.trackIDs ?? [])
                    },
                    overlays: production.overlays)
                do {
                    // Not `atomically:` — Foundation on Linux leaves its /tmp/TemporaryDirectory.* behind.
                    try Data(Self.withCameraPaths(drawing, production.reframings).utf8).write(to: URL(fileURLWithPath: svg))
                } catch {
                    printError("dropcut plan: cannot write \(svg): \(error.localizedDescription)")
                    throw ExitCode(1)
                }
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// The timeline drawing with each `fit: smart` clip's camera path drawn under it.
    static func withCameraPaths(_ timeline: String, _ reframings: [ClipReframing]) -> String {
        reframings.isEmpty ? timeline : CameraPathSVG.stacked([timeline] + reframings.map(CameraPathSVG.render))
    }

    /// `clip.mov -> 4 deliverables from 1 decode of the clip`, a line per render that
    /// makes several from one decode, a line per deliverable (kind, name, size, codecs or
    /// the poster's time; under a video, what of it is copied and what encoded, and why),
    /// the manifest, then the timeline of the first (the others differ
    /// in size, fit and encoding, not in timing).
    static func describe(_ deliverables: Deliverables) -> String {
        let decodes = deliverables.decodes
        var text = "\(deliverables.input) -> \(deliverables.items.count) deliverable\(deliverables.items.count == 1 ? "" : "s") "
            + "from \(decodes.count) decode\(decodes.count == 1 ? "" : "s") of the clip\n"
        for shared in decodes.shared { text += "  one decode: \(shared.joined(separator: ", "))\n" }
        for item in deliverables.items {
            let production = item.production
            let size = production.videoComposition.renderSize
            switch item.kind {
            case .video:
                let settings = production.settings
                let fps = production.videoComposition.frameDuration.seconds > 0 ? 1 / production.videoComposition.frameDuration.seconds : 0
                text += "  video  \(item.filename) \(size) \(String(format: "%g", (fps * 1000).rounded() / 1000)) fps "
                    + "\(settings.videoCodec.rawValue) crf \(settings.crf) \(settings.preset)"
                    + (production.composition.tracks(of: .audio).isEmpty ? ", no audio" : ", aac \(settings.audioBitrate / 1000)k")
                    + " \(String(format: "%.3f", production.composition.duration.seconds)) s\n"
                // What is copied, spliced or encoded, and why: as for a single output.
                for line in production.passThrough.lines { text += "    \(line)\n" }
            case let .poster(poster):
                let at: String
                switch poster.time {
                case let .at(time): at = "at \(String(format: "%.3f", time.seconds)) s"
                case .best: at = "at best (the sharpest well-exposed of \(RecipeLimits.posterCandidates) frames)"
                }
                text += "  poster \(item.filename) \(size) \(poster.format.rawValue) \(at)\n"
            case let .preview(preview):
                let times = production.previewTimes(preview)
                text += "  preview \(item.filename) \(production.previewSize(preview)) \(preview.format.rawValue) from \(String(format: "%.3f", preview.from.seconds)) s, "
                    + "\(times.count) frames at \(preview.fps) fps, silent, looping\n"
            case let .hls(ladder):
                let settings = production.settings
                text += "  hls    \(item.publishedName)/\(item.filename) \(production.hlsRungs(ladder).map(\.description).joined(separator: ", ")) "
                    + "\(settings.videoCodec.rawValue) crf \(settings.crf) \(settings.preset), \(String(format: "%g", ladder.segment.seconds)) s segments, keyframes aligned"
                    + (production.composition.tracks(of: .audio).isEmpty ? ", no audio" : ", one aac \(settings.audioBitrate / 1000)k audio rendition")
                    + "\n"
            case .captions:
                let cues = production.captions?.cues.count ?? 0
                text += "  captions \(item.filename) WebVTT, \(cues) cue\(cues == 1 ? "" : "s") in output time\n"
                for line in Self.cueLines(production.captions?.cues ?? []) { text += "  \(line)\n" }
            }
        }
        for item in deliverables.items where !item.production.reframings.isEmpty {
            text += "  \(item.filename):\n" + item.production.reframings.flatMap(\.lines).map { "    \($0)\n" }.joined()
        }
        text += "  manifest \(deliverables.manifestFilename) (written last)\n"
        if let first = deliverables.items.first {
            text += TimelineDescription.text(composition: first.production.composition, videoComposition: first.production.videoComposition,
                                             audioMix: first.production.audioMix)
        }
        return text
    }

    /// `ducking: tracks 3, 4 down -12 dB under the clips' sound above -30 dBFS (attack
    /// 0.2 s, release 0.8 s, hold 0.5 s): 2 stretches [1.000,+2.000], [5.000,+2.000]`
    /// `under` replaces what the music ducks under; `alsoUnder` is added to it.
    static func describe(_ duck: Recipe.Duck, of music: MusicBed, under: String? = nil, alsoUnder: String = "") -> String {
        let tracks = music.trackIDs.map(String.init).joined(separator: ", ")
        let under = (under ?? (duck.windows != nil ? "the recipe's windows" : "the clips' sound above \(formatLevel(duck.threshold.decibels)) dBFS")) + alsoUnder
        let stretches = music.duckedRanges.map(\.description).joined(separator: ", ")
        return "ducking: track\(music.trackIDs.count > 1 ? "s" : "") \(tracks) down \(formatLevel(duck.depth.decibels)) dB under \(under) "
            + "(attack \(duck.attack) s, release \(duck.release) s, hold \(duck.hold) s): "
            + (music.duckedRanges.isEmpty ? "nothing to duck under" : "\(music.duckedRanges.count) stretch\(music.duckedRanges.count == 1 ? "" : "es") \(stretches)")
    }

    /// `audio item track 4 voiceover.m4a [2.000,+2.000] replace (the clips' sound silent), pitch +12 semitones, music ducks under it`
    static func describe(_ item: AudioItemPlacement, music: Bool) -> String {
        var text = "audio item track \(item.trackID) \((item.source as NSString).lastPathComponent) \(item.range) "
        text += item.mode == .replace ? "replace (the clips' sound silent)" : "mix"
        if item.pitch != 0 { text += ", pitch \(item.pitch > 0 ? "+" : "")\(formatLevel(item.pitch)) semitones" }
        if item.ducksMusic, music { text += ", the music ducks under it" }
        return text
    }

    /// `slow motion from IMG_0001.AAE: rate 0.25 over [2.805,+13.090] (eased over 0.2 s at each edge)`
    static func describe(_ sidecar: SlowMotionSidecar) -> String {
        let regions = sidecar.regions.map(\.description).joined(separator: ", ")
        return "slow motion from \(sidecar.path): rate \(String(format: "%g", sidecar.rate)) over \(regions) "
            + "(stepped in and out over \(CompositionBuilder.slowMotionEdge) s of source at each edge)"
    }

    /// `captions: 12 cues in DejaVuSans.ttf at 5% of the height, bottom, at most 2 lines`, then
    /// one line a cue: `  [1.000,+2.500] "Hello there"` (composition time).
    static func describe(_ track: CaptionTrack) -> String {
        let style = track.style
        var text = "captions: \(track.cues.count) cue\(track.cues.count == 1 ? "" : "s") in "
            + ((style.fontPaths.first.map { ($0 as NSString).lastPathComponent }) ?? "the default font")
            + " at \(formatLevel(style.size * 100))% of the height, \(style.position.rawValue), at most \(style.maxLines) line\(style.maxLines == 1 ? "" : "s")"
        if style.highlightColor != nil { text += ", the spoken word highlighted" }
        for line in cueLines(track.cues) { text += "\n" + line }
        return text
    }

    /// One line a cue, in output time: `  [1.000,+2.500] "Hello / there"` (lines joined by `/`).
    static func cueLines(_ cues: [CaptionCue]) -> [String] {
        cues.map { cue in
            "  \(cue.timeRange) \"\(cue.text.replacingOccurrences(of: "\n", with: " / "))\""
                + (cue.words.isEmpty ? "" : " (\(cue.words.count) timed words)")
        }
    }

    /// `overlay image logo.png bottom-right margin 43.2 width 162 [0.000,+12.000] opacity ramp ...`
    static func describe(_ overlay: OverlayLayer) -> String {
        var text = "overlay "
        if case let .captions(track) = overlay.content { return describe(track) }
        switch overlay.content {
        case let .image(path): text += "image \((path as NSString).lastPathComponent)"
        case let .imageSequence(paths, frameDuration):
            text += "image sequence \((paths.first.map { ($0 as NSString).lastPathComponent }) ?? "")... (\(paths.count) pictures, \(frameDuration)s each, looping)"
        case let .text(string, font, size, color):
            text += "text \"\(string)\" \((font as NSString).lastPathComponent) \(Int(size.rounded()))px \(color)"
        case let .group(children, size):
            text += "group \(Int(size.width.rounded()))x\(Int(size.height.rounded())) of \(children.count)"
        case .captions:
            break   // described above
        }
        text += " \(overlay.anchor.rawValue) margin \(Int(overlay.margin.rounded()))px"
        if let width = overlay.width { text += " width \(Int(width.rounded()))px" }
        text += " \(overlay.timeRange) opacity " + overlay.opacity.keyframes.map(\.description).joined(separator: ", ")
        if let motion = overlay.motion {
            text += " moving " + motion.keyframes.map(\.description).joined(separator: ", ")
        }
        if overlay.rotation != 0 { text += " rotated \(formatLevel(overlay.rotation))°" }
        if let spin = overlay.spin {
            text += " spun \(formatLevel(spin.degrees))° about \(spin.axis.rawValue) seen from \(formatLevel(spin.distance))px"
        }
        if !overlay.animation.isEmpty { text += " animating " + overlay.animation.summary }
        if overlay.textEffects.outlineWidth > 0 { text += " outline \(formatLevel(overlay.textEffects.outlineWidth))px" }
        if overlay.textEffects.shadowOffset > 0 { text += " shadow \(formatLevel(overlay.textEffects.shadowOffset))px" }
        if case let .group(children, _) = overlay.content {
            for child in children { text += "\n  " + describe(child).replacingOccurrences(of: "\n", with: "\n  ") }
        }
        return text
    }
}

/// `-30`, `-12.5`: a level without trailing zeros.
func formatLevel(_ decibels: Double) -> String {
    decibels == decibels.rounded() ? String(Int(decibels)) : String(decibels)
}
