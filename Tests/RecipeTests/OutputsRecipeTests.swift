import Foundation
import DropcutRecipe
import Testing
import TestSupport
import DropcutTimeline

/// `outputs:` — deliverables inheriting `output:` key by key — and the size bounds.
@Suite struct OutputsRecipeTests {
    static let issueExample = """
        version: 1
        output: { video: { codec: h264, crf: 20, preset: veryfast }, audio: { codec: aac, bitrate: 160k } }
        outputs:
          - { filename: "{name}.vertical.mp4", size: 1080x1920, fit: fill }
          - { filename: "{name}.square.mp4",   size: 1080x1080, fit: fill }
          - { filename: "{name}.wide.mp4",     size: 1280x720,  fit: fit }
          - { filename: "{name}.poster.jpg",   poster: { at: 2s } }

        """

    @Test func theIssuesExampleIsAccepted() throws {
        let recipe = try loadRecipe(Self.issueExample).get()
        #expect(recipe.outputs.count == 4)
        let sizes = recipe.outputs.map(\.output.size)
        #expect(sizes == [PixelSize(width: 1080, height: 1920), PixelSize(width: 1080, height: 1080), PixelSize(width: 1280, height: 720), nil])
        #expect(recipe.outputs.map(\.output.fit) == [.fill, .fill, .fit, .fit])
        #expect(recipe.outputs.map { $0.output.filename.text } == ["{name}.vertical.mp4", "{name}.square.mp4", "{name}.wide.mp4", "{name}.poster.jpg"])
        for video in recipe.outputs.prefix(3) {
            #expect(video.kind == .video)
            #expect(video.output.video.crf == 20 && video.output.video.preset == "veryfast" && video.output.audio.bitrate == 160_000)
        }
        guard case let .poster(poster) = recipe.outputs[3].kind else { Issue.record("not a poster"); return }
        #expect(poster.time == .at(MediaTime(seconds: 2)) && poster.format == .jpeg)
        #expect(recipe.outputs[3].location.line == 7)
    }

    /// The issue's whole example, its preview too; an HLS entry is named and refused at
    /// its key, never ignored.
    @Test func thePreviewAndTheHLSLadderAreAccepted() throws {
        let example = Self.issueExample + """
              - { filename: "{name}.preview.webp", preview: { from: 0s, duration: 3s, width: 320, fps: 10 } }

            """
        let recipe = try loadRecipe(example).get()
        #expect(recipe.outputs.count == 5)
        #expect(recipe.outputs[4].kind == .preview(Recipe.Preview(from: .zero, duration: MediaTime(seconds: 3), width: 320, fps: 10,
                                                                  at: SourceLocation(file: "test.yaml", line: 8, column: 49))))
        // Defaults: from 0, 3 s, 320 wide, 10 fps.
        let defaults = try loadRecipe("version: 1\noutputs:\n  - { filename: p.webp, preview: {} }\n").get()
        #expect(defaults.outputs[0].kind == .preview(Recipe.Preview(from: .zero, duration: MediaTime(seconds: 3), width: 320, fps: 10,
                                                                    at: SourceLocation(file: "test.yaml", line: 3, column: 34))))
        let gif = try loadRecipe("version: 1\noutputs:\n  - { filename: p.GIF, preview: { fps: 12 } }\n").get()
        guard case let .preview(preview) = gif.outputs[0].kind else { Issue.record("not a preview"); return }
        #expect(preview.format == .gif && preview.fps == 12)
        let withLadder = try loadRecipe(example + """
              - { filename: "{name}.m3u8", hls: { heights: [480, 1080, 720], segment: 4s } }
              - { filename: "{name}.default.m3u8", size: 720p, hls: { heights: [360] } }

            """).get()
        #expect(withLadder.outputs.count == 7)
        #expect(withLadder.outputs[5].kind == .hls(Recipe.HLSLadder(heights: [1080, 720, 480], segment: MediaTime(seconds: 4),
                                                                   location: SourceLocation(file: "test.yaml", line: 9, column: 37))))
        #expect(withLadder.outputs[5].output.video.crf == 20, "the ladder inherits output.video")
        guard case let .hls(defaults) = withLadder.outputs[6].kind else { Issue.record("not a ladder"); return }
        #expect(defaults.segment == MediaTime(seconds: 6) && defaults.heights == [360])
    }

    @Test func entriesMergeOutputKeyByKey() throws {
        let recipe = try loadRecipe("""
            version: 1
            output: { size: 1080x1920, fit: fill, fps: 25, video: { codec: hevc, crf: 22, preset: fast }, audio: { bitrate: 128k, loudness: -16LUFS } }
            outputs:
              - { filename: a.mp4 }
              - { filename: b.mov, video: { crf: 28 }, audio: { bitrate: 96k } }
              - { filename: c.mp4, size: 720p, fps: source }
              - { filename: d.mp4, size: { max: 640x640 }, fit: stretch, video: { preset: ultrafast } }

            """).get()
        let o = recipe.outputs.map(\.output)
        #expect(o[0] == recipe.output.with(filename: "a.mp4"))
        #expect(o[1].video.codec == .hevc && o[1].video.crf == 28 && o[1].video.preset == "fast")
        #expect(o[1].audio.bitrate == 96_000 && o[1].audio.loudness == -16)
        #expect(o[1].size == PixelSize(width: 1080, height: 1920) && o[1].fps == MediaTime(seconds: 25))
        #expect(o[2].size == nil && o[2].sizeBound == .sizeClass(720) && o[2].fps == nil && o[2].fit == .fill)
        #expect(o[3].size == nil && o[3].sizeBound == .max(PixelSize(width: 640, height: 640)) && o[3].fit == .stretch)
        #expect(o[3].video.preset == "ultrafast" && o[3].video.crf == 22)
        // `output:` itself is untouched.
        #expect(recipe.output.video.crf == 22 && recipe.output.filename.text == "{name}.dropcut.mp4")
    }

    @Test func sizeClassesAndBoundsOnOutput() throws {
        #expect(try loadRecipe("version: 1\noutput: { size: 1080p }\n").get().output.sizeBound == .sizeClass(1080))
        #expect(try loadRecipe("version: 1\noutput: { size: { max: 1920x1080 } }\n").get().output.sizeBound == .max(PixelSize(width: 1920, height: 1080)))
        #expect(problems("version: 1\noutput: { size: 1081p }\n").first?.contains("a class (480p, 720p, 1080p, 2160p)") == true)
        #expect(problems("version: 1\noutput: { size: { max: 1921x1080 } }\n") == ["2:24: output.size.max must have even width and height for 4:2:0 video (got 1921x1080)"])
        #expect(problems("version: 1\noutput: { size: { max: 99999x8 } }\n") == ["2:24: output.size.max must be between 16 and 8192 pixels a side (got 99999x8)"])
        #expect(problems("version: 1\noutput: { size: { min: 10x10 } }\n").contains { $0.contains("unknown key 'min' in output.size") })
        #expect(problems("version: 1\noutput: { size: {} }\n") == ["2:17: output.size as a mapping needs max: WIDTHxHEIGHT (like { max: 1920x1080 })"])
    }

    @Test(arguments: [
        // (entries, the expected problem)
        ("- { filename: a.mp4 }\n  - { filename: a.mp4 }", "5:5: outputs[1].filename \"a.mp4\" names the same file as outputs[0] (at 4:5): each deliverable needs its own filename"),
        ("- { size: 720p }\n  - { size: 480p }", "5:5: outputs[1].filename \"{name}.dropcut.mp4\" names the same file as outputs[0] (at 4:5): each deliverable needs its own filename"),
        ("- { filename: \"{name}.A.mp4\" }\n  - { filename: \"{name}.a.MP4\" }", "5:5: outputs[1].filename \"{name}.a.MP4\" names the same file as outputs[0] (at 4:5): each deliverable needs its own filename"),
        ("- { filename: a.jpg }", "4:17: outputs[0].filename must end in .mp4, .mov or .m4v for a video (got \"a.jpg\"); a picture needs poster: { at: ... }"),
        ("- { filename: a.mp4, poster: { at: 1 } }", "4:17: outputs[0].filename must end in .jpg, .jpeg, .png or .webp for a poster (got \"a.mp4\")"),
        ("- { poster: { at: 1 } }", "4:5: outputs[0].filename must end in .jpg, .jpeg, .png or .webp for a poster (got \"{name}.dropcut.mp4\")"),
        ("- { filename: a.png, poster: {} }", "4:32: outputs[0].poster needs at: a time (like 2s) or best"),
        ("- { filename: a.png, poster: { at: soon } }", "4:38: outputs[0].poster.at must be a time"),
        ("- { filename: a.png, poster: { at: 1e19 } }", "4:38: outputs[0].poster.at must be at most 24 hours (86400 s)"),
        ("- { filename: a.png, poster: { when: 1 } }", "4:34: unknown key 'when' in outputs[0].poster"),
        ("- { filename: dir/a.mp4 }", "4:17: outputs[0].filename must be a file name without folders"),
        // Control characters: a NUL would cut the published name short of the manifest's,
        // a newline would split the log lines that name the file.
        ("- { filename: \"{name}\\0.mp4\" }", "4:17: outputs[0].filename holds the control character U+0000 (NUL) after 6 character(s); a file name cannot hold control characters"),
        ("- { filename: \"{name}.a\\nb.mp4\" }", "4:17: outputs[0].filename holds the control character U+000A (a line feed) after 8 character(s); a file name cannot hold control characters"),
        ("- { filename: \"a\\e[31m.mp4\" }", "4:17: outputs[0].filename holds the control character U+001B (ESC) after 1 character(s); a file name cannot hold control characters"),
        ("- { filename: \"a\\x85.mp4\" }", "4:17: outputs[0].filename holds the control character U+0085 after 1 character(s); a file name cannot hold control characters"),
        // Line separators and bidi controls: a name that reads as another file (a
        // RIGHT-TO-LEFT OVERRIDE shows the rest of the name reversed), or splits its log lines.
        ("- { filename: \"clip\\u202E4pm.mp4\" }", "4:17: outputs[0].filename holds U+202E RIGHT-TO-LEFT OVERRIDE after 4 character(s); a file name cannot hold line separators or bidi controls"),
        ("- { filename: \"a\\u2028b.mp4\" }", "4:17: outputs[0].filename holds U+2028 LINE SEPARATOR after 1 character(s)"),
        ("- { filename: \"a\\u2029b.mp4\" }", "4:17: outputs[0].filename holds U+2029 PARAGRAPH SEPARATOR after 1 character(s)"),
        ("- { filename: \"\\u2066a.mp4\" }", "4:17: outputs[0].filename holds U+2066 LEFT-TO-RIGHT ISOLATE after 0 character(s)"),
        ("- { filename: \"a.mp4\\u200F\" }", "4:17: outputs[0].filename holds U+200F RIGHT-TO-LEFT MARK after 5 character(s)"),
        ("- { filename: \"a\\u061Cb.mp4\" }", "4:17: outputs[0].filename holds U+061C ARABIC LETTER MARK after 1 character(s)"),
        ("- { filename: a.mp4, size: 17x16 }", "4:30: outputs[0].size must have even width and height for 4:2:0 video (got 17x16)"),
        ("- { filename: a.mp4, video: { crf: 99 } }", "4:38: outputs[0].video.crf must be between 0 and 51 (got 99)"),
        ("- { filename: a.mp4, sise: 720p }", "4:24: unknown key 'sise' in outputs[0]; did you mean 'size'?"),
        ("- { filename: a.mp4, dynamic_range: hdr, video: { codec: h264 } }", "4:5: outputs[0]: dynamic_range hdr needs video.codec hevc"),
        ("- { filename: a.dropcut.json, poster: { at: 1 } }", "4:17: outputs[0].filename must end in .jpg, .jpeg, .png or .webp for a poster (got \"a.dropcut.json\")"),
        ("- a.mp4", "4:5: outputs[0] must be a mapping of keys"),
        ("- { filename: p.png, preview: {} }", "4:17: outputs[0].filename must end in .webp or .gif for a preview (got \"p.png\")"),
        ("- { filename: p.webp, preview: { width: 321 } }", "4:43: outputs[0].preview.width must be even for 4:2:0 pictures (got 321)"),
        ("- { filename: p.webp, preview: { width: 9999 } }", "4:43: outputs[0].preview.width must be between 16 and 1920 (got 9999)"),
        ("- { filename: p.webp, preview: { fps: 0 } }", "4:41: outputs[0].preview.fps must be between 1 and 30 (got 0)"),
        ("- { filename: p.webp, preview: { duration: 0 } }", "4:46: outputs[0].preview.duration must be more than 0 and at most 30 s (got 0)"),
        ("- { filename: p.webp, preview: { duration: 31 } }", "4:46: outputs[0].preview.duration must be more than 0 and at most 30 s (got 31)"),
        ("- { filename: p.webp, preview: { from: -1 } }", "4:42: outputs[0].preview.from must not be negative (got -1)"),
        ("- { filename: p.webp, preview: { size: 1 } }", "4:36: unknown key 'size' in outputs[0].preview; expected one of: from, duration, width, fps"),
        ("- { filename: p.webp, preview: {}, poster: { at: 1 } }", "4:5: outputs[0] is one deliverable: give one of poster, preview or hls, not poster and preview"),
        ("- { filename: l.m3u8, hls: {} }", "4:30: outputs[0].hls needs heights: the rungs of the ladder (like [1080, 720, 480])"),
        ("- { filename: l.mp4, hls: { heights: [720] } }", "4:17: outputs[0].filename must end in .m3u8 for an HLS ladder (got \"l.mp4\")"),
        ("- { filename: l.m3u8, hls: { heights: [] } }", "4:41: outputs[0].hls.heights must list 1 to 8 heights (got 0)"),
        ("- { filename: l.m3u8, hls: { heights: [1,2,3,4,5,6,7,8,9] } }", "4:41: outputs[0].hls.heights must list 1 to 8 heights (got 9)"),
        ("- { filename: l.m3u8, hls: { heights: [721] } }", "4:42: outputs[0].hls.heights: 721 must be even for 4:2:0 video"),
        ("- { filename: l.m3u8, hls: { heights: [720, 720] } }", "4:47: outputs[0].hls.heights lists 720 twice"),
        ("- { filename: l.m3u8, hls: { heights: [99999] } }", "4:42: outputs[0].hls.heights[] must be between 64 and 4320 (got 99999)"),
        ("- { filename: l.m3u8, hls: { heights: [720], segment: 0.5 } }", "4:57: outputs[0].hls.segment must be 1 to 20 s (got 0.5)"),
        ("- { filename: l.m3u8, hls: { heights: [720], segment: 99 } }", "4:57: outputs[0].hls.segment must be 1 to 20 s (got 99)"),
        ("- { filename: l.m3u8, hls: { heights: [720], segments: 4 } }", "4:48: unknown key 'segments' in outputs[0].hls; did you mean 'segment'?"),
        ("- { filename: l.m3u8, hls: { heights: [720] }, poster: { at: 1 } }", "4:5: outputs[0] is one deliverable: give one of poster, preview or hls, not poster and hls"),
    ])
    func entryProblems(entries: String, expected: String) {
        let yaml = "version: 1\noutput: { fps: 30 }\noutputs:\n  \(entries)\n"
        let lines = problems(yaml)
        #expect(lines.contains { $0.hasPrefix(expected) }, "\(yaml)\n\(lines)")
    }

    @Test func listBounds() {
        #expect(problems("version: 1\noutputs: []\n") == ["2:10: outputs must list at least one deliverable (leave it out for the one file output: describes)"])
        let many = (0...RecipeLimits.maximumOutputs).map { "  - { filename: f\($0).mp4 }" }.joined(separator: "\n")
        #expect(problems("version: 1\noutputs:\n\(many)\n") == ["3:3: outputs may list at most 16 deliverables (got 17)"])
        let enough = (0..<RecipeLimits.maximumOutputs).map { "  - { filename: f\($0).mp4 }" }.joined(separator: "\n")
        #expect(problems("version: 1\noutputs:\n\(enough)\n") == ["(valid)"])
        #expect(problems("version: 1\noutputs: { filename: a.mp4 }\n").first?.hasPrefix("2:10: outputs must be a list") == true)
    }

    @Test func posterBestAndFormats() throws {
        let recipe = try loadRecipe("""
            version: 1
            outputs:
              - { filename: a.jpeg, poster: { at: best } }
              - { filename: b.PNG, poster: { at: "00:01.5" }, dynamic_range: hdr }
              - { filename: c.webp, poster: { at: 250ms } }

            """).get()
        let posters = recipe.outputs.compactMap { if case let .poster(p) = $0.kind { p } else { nil } }
        #expect(posters.map(\.format) == [.jpeg, .png, .webp])
        #expect(posters.map(\.time) == [.best, .at(MediaTime(value: 3, timescale: 2)), .at(MediaTime(value: 1, timescale: 4))])
        // A picture is SDR whatever the entry asks.
        #expect(recipe.outputs[1].output.dynamicRange == .sdr)
    }

    /// Overlays are checked against each deliverable's own size too.
    @Test func overlaysCheckedPerDeliverableSize() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        let yaml = """
            version: 1
            output: { size: 1920x1080 }
            outputs:
              - { filename: a.mp4 }
              - { filename: b.mp4, size: 16x16 }
            overlays:
              - { image: logo.png, width: 40px }

            """
        let lines = problems(yaml, in: dir)
        #expect(lines.count == 1 && lines[0].hasPrefix("7:5: overlay width is 40 px"), "\(lines)")
    }

    /// The single-output recipe is what it was: no `outputs` at all.
    @Test func withoutOutputsNothingChanges() throws {
        let recipe = try loadRecipe("version: 1\noutput: { size: 1080x1920 }\n").get()
        #expect(recipe.outputs.isEmpty && recipe.output.sizeBound == nil)
    }

    /// The size bound reaches the builder: a 4K portrait source at 1080p comes out 1080x1920.
    @Test func builderAppliesTheBound() throws {
        let recipe = try loadRecipe("version: 1\noutputs:\n  - { filename: a.mp4, size: 1080p }\n  - { filename: b.mp4, size: { max: 640x640 } }\n").get()
        let probe = TableProbe(table: ["/in/clip.mov": TableProbe.clip("/in/clip.mov", seconds: 2, width: 2160, height: 3840)])
        let sizes = try recipe.outputs.map {
            try CompositionBuilder(recipe: $0.recipe(from: recipe), probe: probe, levels: FixedLevels()).build(input: "/in/clip.mov").videoComposition.renderSize
        }
        #expect(sizes == [PixelSize(width: 1080, height: 1920), PixelSize(width: 360, height: 640)])
    }
}

extension Recipe.Output {
    func with(filename: String) -> Recipe.Output {
        var copy = self
        copy.filename = try! FilenameTemplate(filename)
        return copy
    }
}
