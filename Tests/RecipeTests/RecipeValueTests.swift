import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

@Suite struct RecipeValueTests {
    @Test(arguments: [
        ("2", MediaTime(seconds: 2)), ("1.5", MediaTime(value: 3, timescale: 2)), ("1.5s", MediaTime(value: 3, timescale: 2)),
        ("250ms", MediaTime(value: 1, timescale: 4)), ("00:01.500", MediaTime(value: 3, timescale: 2)),
        ("01:02:03.5", MediaTime(value: 7447, timescale: 2)), ("2:05", MediaTime(seconds: 125)), ("0.1", MediaTime(value: 1, timescale: 10)),
    ])
    func timesParseExactly(text: String, expected: MediaTime) {
        #expect(RecipeTime.parse(text) == .seconds(expected))
    }

    @Test func timesRejectNonsense() {
        for bad in ["", "abc", "1:2:3:4", "00:61", "01:60:00", "1.5 h", "end", "-:30", "1e3"] {
            #expect(RecipeTime.parse(bad) == nil, "\(bad)")
        }
        #expect(RecipeTime.parse("end", allowEnd: true) == .end)
        #expect(RecipeTime.end.resolved(end: 9) == 9)
    }

    @Test func gainsLengthsColoursSizesAndBitrates() {
        #expect(Gain.parse("-10dB")?.decibels == -10)
        #expect(Gain.parse("-30dBFS", fullScale: true)?.decibels == -30)
        #expect(Gain.parse("-30dBFS") == nil)
        #expect(abs(Gain(decibels: -6).linear - 0.501187) < 1e-6)
        #expect(Length.parse("4%") == .percent(4))
        #expect(Length.parse("24px") == .pixels(24))
        #expect(Length.parse("24") == .pixels(24))
        #expect(Length.percent(15).pixels(of: 1080) == 162)
        #expect(ColorParser.parse("#fff") == Color(red: 1, green: 1, blue: 1))
        #expect(ColorParser.parse("#ff000080") == Color(red: 1, green: 0, blue: 0, alpha: 128.0 / 255))
        #expect(ColorParser.parse("#12345") == nil)
        #expect(ColorParser.parse("white") == nil)
        #expect(PixelSizeParser.parse("1080x1920") == PixelSize(width: 1080, height: 1920))
        #expect(BitrateParser.parse("160k") == 160_000)
        #expect(BitrateParser.parse("1.5M") == 1_500_000)
    }

    @Test func templatesFillEveryPlaceholder() throws {
        let template = try FilenameTemplate("{name}.{ext}-{recipe}-{date:yyyy-MM-dd HH:mm:ss}-{{x}}.mp4")
        let date = Date(timeIntervalSince1970: 1_700_000_000)   // 2023-11-14 22:13:20 UTC
        let text = template.render(.init(inputPath: "/in/IMG_0042.MOV", recipeName: "social", date: date))
        #expect(text == "IMG_0042.MOV-social-2023-11-14 22:13:20-{x}.mp4")
        #expect(try FilenameTemplate("{date}").render(.init(inputPath: "a", recipeName: "r", date: date)) == "2023-11-14")
        #expect(try FilenameTemplate("{input}").render(.init(inputPath: "/in/a.mov", recipeName: "r")) == "/in/a.mov")
    }

    @Test func templatesRejectUnknownPlaceholders() {
        #expect(throws: TemplateError.self) { try FilenameTemplate("{nmae}.mp4") }
        #expect(throws: TemplateError.self) { try FilenameTemplate("{name") }
        #expect(throws: TemplateError.self) { try FilenameTemplate("{date:%Y}") }
        #expect(problems("version: 1\noutput: { filename: \"{nmae}.mp4\" }\n") == [
            "2:21: output.filename: unknown placeholder {nmae}; expected {name}, {ext}, {recipe}, {input} or {date:FORMAT}",
        ])
        #expect(problems("version: 1\noutput: { filename: \"../{name}.mp4\" }\n") == [
            "2:21: output.filename must be a file name without folders (the output goes to the outbox)",
        ])
        #expect(problems("version: 1\noutput: { filename: \"{name}.avi\" }\n") == [
            "2:21: output.filename must end in .mp4, .mov or .m4v (got \"{name}.avi\")",
        ])
        #expect(problems("version: 1\noutput: { filename: \"{name}\\t.mp4\" }\n") == [
            "2:21: output.filename holds the control character U+0009 (a tab) after 6 character(s); a file name cannot hold control characters",
        ])
        // Every line separator and bidi control, named, in `output:` as in `outputs:`.
        for (code, name) in LayoutCharacter.names {
            let hex = String(code, radix: 16, uppercase: true)
            let escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            #expect(problems("version: 1\noutput: { filename: \"a\(escaped).mp4\" }\n") == [
                "2:21: output.filename holds U+\(String(repeating: "0", count: 4 - hex.count) + hex) \(name) after 1 character(s); "
                    + "a file name cannot hold line separators or bidi controls (the name would not read as the file it is)",
            ])
        }
        // Characters near them are names like any other.
        for text in ["a\\u2027.mp4", "a\\u202F.mp4", "a\\u2065.mp4", "a\\u206A.mp4", "a\\u200D.mp4", "caf\\u00E9.mp4"] {
            #expect(problems("version: 1\noutput: { filename: \"\(text)\" }\n") == ["(valid)"], "\(text)")
        }
    }

    /// A raw control byte (NUL, ESC) in a file is refused by the YAML reader before any key
    /// is read: reported where it is, not at 1:1, and named.
    @Test func rawControlBytesAreReportedWhereTheyAre() {
        #expect(problems("version: 1\noutput: { filename: \"a\u{1B}[31m.mp4\" }\n") == [
            "2:23: the file holds the control character U+001B (ESC), which YAML does not allow (only tab, line feed and carriage return); remove it",
        ])
        // CR LF line ends count once; columns count characters, not bytes (é is two).
        #expect(problems("version: 1\r\n# é\r\noutput: { filename: é\u{0}.mp4 }\r\n").first?.hasPrefix("3:22: the file holds the control character U+0000 (NUL)") == true)
        #expect(problems("version: 1\routput:\r  filename: \"\u{7}\"\r").first?.hasPrefix("3:14: the file holds the control character U+0007") == true)
    }

    /// What fills a placeholder never puts a control character into a name: each is
    /// written `\xHH` (its UTF-8 bytes), as the daemon writes such a clip's name; a
    /// name without one is left as it is.
    @Test func placeholdersEscapeControlCharacters() throws {
        let template = try FilenameTemplate("{name}.{recipe}.mp4")
        #expect(template.render(.init(inputPath: "/in/a\nb.mov", recipeName: "r\u{1B}[2J")) == "a\\x0Ab.r\\x1B[2J.mp4")
        #expect(template.render(.init(inputPath: "/in/caf\u{85}é.mov", recipeName: "r")) == "caf\\xC2\\x85é.r.mp4")
        #expect(template.render(.init(inputPath: "/in/plain.mov", recipeName: "r")) == "plain.r.mp4")
        for value in 0..<0xA0 {
            let scalar = Unicode.Scalar(UInt8(value))
            let rendered = template.render(.init(inputPath: "/in/x\(scalar).mov", recipeName: "r"))
            #expect(FilenameTemplate.controlCharacter(in: rendered) == nil, "U+\(String(value, radix: 16))")
        }
    }

    @Test func defaultsFillWhatARecipeLeavesOut() throws {
        let recipe = try loadRecipe("version: 1\n").get()
        #expect(recipe.clips == [Recipe.Clip()])
        #expect(recipe.output.size == nil && recipe.output.fps == nil && recipe.output.fit == .fit)
        #expect(recipe.output.video.codec == .h264 && recipe.output.video.crf == 20 && recipe.output.audio.bitrate == 160_000)
        #expect(recipe.transition.kind == .cut && recipe.orientation == .auto && recipe.originalAudio == .keep)
        let crossfade = try loadRecipe("version: 1\ntransition: { kind: crossfade }\n").get()
        #expect(crossfade.transition.duration == MediaTime(value: 1, timescale: 2))
        let slow = try loadRecipe("version: 1\nclips:\n  - speed: [{ range: [1, 2], rate: 0.3 }]\n").get()
        #expect(slow.clips[0].speed[0].rate == MediaTime(value: 3, timescale: 10))   // exact, not 0.299999...
    }
}

/// Folder default <- inbox recipe.yaml <- clip sidecar, key by key.
@Suite struct RecipeMergeTests {
    @Test func laterFilesOverrideKeyByKey() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let base = dir.write("folder.yaml", """
        version: 1
        output: { size: 1080x1920, fit: fill, fps: 30, video: { crf: 20, preset: veryfast } }
        overlays:
          - text: "base"
        """)
        let inbox = dir.write("recipe.yaml", """
        version: 1
        output: { video: { crf: 28 } }
        original_audio: mute
        """)
        let sidecar = dir.write("IMG_1.yaml", """
        version: 1
        output: { fit: fit }
        overlays:
          - text: "sidecar"
        """)
        let recipe = try RecipeLoader().load([base, inbox, sidecar])
        #expect(recipe.output.size == PixelSize(width: 1080, height: 1920))   // from the folder default
        #expect(recipe.output.fit == .fit)                                    // the sidecar wins
        #expect(recipe.output.fps == MediaTime(seconds: 30))
        #expect(recipe.output.video.crf == 28 && recipe.output.video.preset == "veryfast")   // nested keys merge
        #expect(recipe.originalAudio == .mute)
        // Lists are replaced, not appended.
        guard case let .text(template, _, _, _) = recipe.overlays.first?.content else { Issue.record("no text overlay"); return }
        #expect(recipe.overlays.count == 1 && template.text == "sidecar")
        #expect(recipe.name == "folder")
    }

    @Test func errorsPointIntoTheFileThatHasThem() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let base = dir.write("folder.yaml", "version: 1\noutput: { fps: 30 }\n")
        let sidecar = dir.write("IMG_1.yaml", "version: 1\noutput: { fps: 900 }\n")
        let noVersion = dir.write("recipe.yaml", "original_audio: mute\n")
        do {
            _ = try RecipeLoader().load([base, noVersion, sidecar])
            Issue.record("accepted")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "\(noVersion):1:1: version is missing: start the recipe with 'version: 1'",
                "\(sidecar):2:16: output.fps must be between 1 and 240 (got 900)",
            ])
        }
    }
}
