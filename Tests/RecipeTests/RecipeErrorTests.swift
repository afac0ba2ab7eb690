import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// One test per error class: each asserts the line, the column and the message.
@Suite struct RecipeErrorTests {
    @Test func unknownKeySuggestsTheNearestKnownOne() {
        #expect(problems("""
        version: 1
        output:
          filname: "{name}.mp4"
        overlay: []
        """) == [
            "3:3: unknown key 'filname' in output; did you mean 'filename'?",
            "4:1: unknown key 'overlay' in the recipe; did you mean 'overlays'?",
        ])
    }

    @Test func unknownKeyFarFromAnyListsTheChoices() {
        #expect(problems("version: 1\ntransition: { kind: cut, colour: red }\n") == [
            "2:26: unknown key 'colour' in transition; expected one of: kind, duration",
        ])
    }

    @Test func wrongTypesSayWhatWasExpected() {
        #expect(problems("""
        version: 1
        output: fast
        clips:
          source: a.mp4
        music:
          source: [a, b]
        """) == [
            "2:9: output must be a mapping of keys (filename, size, fit, smart, fps, deinterlace, dynamic_range, video, audio, captions), got 'fast'",
            "4:3: clips must be a list, got a mapping",
            "6:11: music.source must be text, got a list",
        ])
    }

    @Test func impossibleValuesNameTheRangeAndTheValue() {
        #expect(problems("""
        version: 1
        output:
          size: 1081x1920
          fps: 500
          video: { codec: h265, crf: 60, preset: veryfst }
          audio: { bitrate: 5k }
        orientation: 45
        """) == [
            "3:9: output.size must have even width and height for 4:2:0 video (got 1081x1920)",
            "4:8: output.fps must be between 1 and 240 (got 500)",
            "5:19: output.video.codec must be one of h264 | hevc (got 'h265'); did you mean 'h264'?",
            "5:30: output.video.crf must be between 0 and 51 (got 60)",
            "5:42: output.video.preset must be one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo (got 'veryfst'); did you mean 'veryfast'?",
            "6:21: output.audio.bitrate must be between 32k and 512k (got 5k)",
            "7:14: orientation must be auto, keep, 0, 90, 180 or 270; got '45'",
        ])
    }

    /// Two neighbouring letters swapped is one typo: `h246` suggests `h264`, `fil` `fill`;
    /// what is far from every choice suggests none.
    @Test func aSwappedPairIsOneTypo() {
        #expect(problems("version: 1\noutput: { video: { codec: h246 } }\n")
                == ["2:27: output.video.codec must be one of h264 | hevc (got 'h246'); did you mean 'h264'?"])
        #expect(RecipeReader.editDistance("h246", "h264") == 1 && RecipeReader.editDistance("ab", "ba") == 1)
        #expect(RecipeReader.editDistance("veryfst", "veryfast") == 1 && RecipeReader.editDistance("abc", "cab") == 2)
        #expect(RecipeReader.editDistance("", "abc") == 3 && RecipeReader.editDistance("kitten", "sitting") == 3)
        #expect(RecipeReader.suggestion(for: "mp3", among: ["h264", "hevc"]) == nil)
    }

    @Test func negativeSpeedRate() {
        #expect(problems("""
        version: 1
        clips:
          - source: "{input}"
            speed:
              - { range: [3.0, 5.0], rate: -2 }
        """) == ["5:36: speed rate must be > 0 (got -2)"])
    }

    @Test func speedRangeOutsideTheTrim() {
        #expect(problems("""
        version: 1
        clips:
          - trim: [1, 4]
            speed:
              - range: [3, 5]
                rate: 0.5
        """) == ["5:16: speed range [3.000s, 5.000s] lies outside the trim [1.000s, 4.000s]"])
    }

    @Test func overlappingSpeedRanges() {
        #expect(problems("""
        version: 1
        clips:
          - speed:
              - { range: [1, 3], rate: 0.5 }
              - { range: [2, 4], rate: 2 }
        """) == ["5:18: speed ranges [1.000s, 3.000s] and [2.000s, 4.000s] overlap"])
    }

    @Test func rangesMustBeOrdered() {
        #expect(problems("""
        version: 1
        clips:
          - trim: [5, 2]
        overlays:
          - text: hi
            during: [3.5, 1]
        """) == [
            "3:15: clips[0].trim must end after it starts (got [5.000, 2.000])",
            "6:19: overlay during must end after it starts (got [3.500, 1.000])",
        ])
    }

    @Test func fadesMustFitTheirRange() {
        #expect(problems("""
        version: 1
        overlays:
          - text: hi
            during: [1, 2]
            fade: { in: 0.8, out: 0.5 }
        """) == ["5:11: overlay fades (0.800s in + 0.500s out) are longer than its during range (1.000s)"])
    }

    @Test func versionMissingOrUnsupported() {
        #expect(problems("output: { fps: 30 }\n") == ["1:1: version is missing: start the recipe with 'version: 1'"])
        #expect(problems("version: 2\n") == ["1:10: version 2 is not supported (this dropcut reads version 1)"])
    }

    @Test func yamlSyntaxErrorsHaveAPosition() {
        let lines = problems("version: 1\noutput:\n  size: [1080x1920\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("4:1: YAML syntax:") == true)
        // libyaml reports duplicates at the mapping that holds them.
        #expect(problems("version: 1\nversion: 1\n") == ["1:1: duplicate key 'version' in this mapping (each key may appear once)"])
    }

    @Test func badUnitsExplainTheAcceptedForms() {
        #expect(problems("""
        version: 1
        transition: { kind: crossfade, duration: soon }
        music: { source: bed.mp3, gain: -10 }
        overlays:
          - { text: hi, color: red, margin: 120%, size: 4em }
        """, assets: []).contains(where: { $0.hasPrefix("2:42: transition.duration must be a time: seconds (2.5)") }))
        let lines = problems("""
        version: 1
        overlays:
          - { text: hi, color: red, margin: 120%, size: 4em }
        """)
        #expect(lines == [
            "3:24: overlay color must be a colour #rgb, #rrggbb or #rrggbbaa; got 'red'",
            "3:37: overlay margin must be between 0 and 32768px or between 0 and 100% (got 120%)",
            "3:49: overlay size must be a length in px or %, like 24, \"24px\" or \"4%\"; got '4em'",
        ])
    }

    @Test func overlayNeedsExactlyOneContent() {
        #expect(problems("version: 1\noverlays:\n  - { anchor: top }\n  - { text: a, image: b.png }\n") == [
            "3:5: an overlay needs image: FILE or text: \"...\"",
            "4:7: an overlay is either an image or a text, not both",
        ])
    }

    @Test func everyErrorIsReportedInOnePass() {
        let lines = problems("""
        version: 1
        output:
          fit: fil
          fps: 0
        clips:
          - audio: loud
            trim: [1, x]
        transition: { kind: swirl }
        original_audio: maybe
        """)
        #expect(lines == [
            "3:8: output.fit must be one of fit | fill | stretch | smart (got 'fil'); did you mean 'fit'?",
            "4:8: output.fps must be between 1 and 240 (got 0)",
            "6:12: clips[0].audio must be one of preserve-pitch | varispeed | mute (got 'loud')",
            "7:15: clips[0].trim end must be a time: seconds (2.5), \"2.5s\", \"250ms\" or \"00:02.500\" or end; got 'x'",
            "8:21: transition.kind must be one of cut | crossfade | push | wipe (got 'swirl')",
            "9:17: original_audio must be one of keep | mute (got 'maybe')",
        ])
    }

    @Test func missingAssetNamesTheFoldersSearched() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let lines = problems("version: 1\nmusic: { source: bed.mp3 }\n", in: dir)
        #expect(lines == ["2:18: music.source 'bed.mp3' not found (looked in \(dir.path))"])
    }

    @Test func missingFontIsAnErrorNamingTheFont() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let lines = problems("version: 1\noverlays:\n  - { text: hi, font: NoSuchFont.ttf }\n", in: dir)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("3:23: overlay font 'NoSuchFont.ttf' not found") == true)
    }
}

/// Asset paths stay inside the recipe's folder and the asset folders, after symlinks.
@Suite struct AssetConfinementTests {
    @Test func dotDotOutOfTheFolderIsRefused() throws {
        let root = try TemporaryDirectory()
        defer { withExtendedLifetime(root) {} }
        let recipes = root.file("recipes"), secret = root.file("secret.png")
        try FileManager.default.createDirectory(atPath: recipes, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: secret, contents: Data("x".utf8))
        let file = (recipes as NSString).appendingPathComponent("r.yaml")
        _ = FileManager.default.createFile(atPath: file, contents: Data("version: 1\noverlays:\n  - image: ../secret.png\n".utf8))
        #expect(throws: RecipeError([RecipeDiagnostic(
            "overlay image '../secret.png' resolves to \(AssetResolver.realPath(secret)!), outside the recipe's folder and the asset folders",
            at: SourceLocation(file: file, line: 3, column: 12))])) {
            try RecipeLoader().load([file])
        }
    }

    @Test func aSymlinkPointingOutIsRefused() throws {
        let root = try TemporaryDirectory()
        defer { withExtendedLifetime(root) {} }
        let inside = root.file("inside"), outside = root.file("outside.png")
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: outside, contents: Data("x".utf8))
        try FileManager.default.createSymbolicLink(atPath: (inside as NSString).appendingPathComponent("logo.png"), withDestinationPath: outside)
        let file = (inside as NSString).appendingPathComponent("r.yaml")
        _ = FileManager.default.createFile(atPath: file, contents: Data("version: 1\noverlays:\n  - image: logo.png\n".utf8))
        do {
            _ = try RecipeLoader().load([file])
            Issue.record("a symlink out of the folder was accepted")
        } catch {
            #expect(error.diagnostics.map(\.message) == ["overlay image 'logo.png' resolves to \(AssetResolver.realPath(outside)!), outside the recipe's folder and the asset folders"])
        }
    }

    @Test func absoluteSystemPathsAreRefused() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let lines = problems("version: 1\nclips:\n  - source: /etc/passwd\n", in: dir)
        #expect(lines == ["3:13: clips[0].source '/etc/passwd' resolves to /etc/passwd, outside the recipe's folder and the asset folders"])
    }

    @Test func assetFoldersAreSearchedAfterTheRecipeFolder() throws {
        let recipeDir = try TemporaryDirectory(), assets = try TemporaryDirectory()
        defer { withExtendedLifetime((recipeDir, assets)) {} }
        _ = FileManager.default.createFile(atPath: assets.file("bed.mp3"), contents: Data("x".utf8))
        let result = loadRecipe("version: 1\nmusic: { source: bed.mp3 }\n", in: recipeDir, assets: [assets.path])
        let recipe = try result.get()
        #expect(recipe.music?.source == AssetResolver.realPath(assets.file("bed.mp3")))
    }
}

/// The `assets/` folder beside a recipe: searched after the recipe's folder and the asset
/// folders (so the examples find their sample assets as shipped, and a real asset folder
/// still wins), and confined to the recipe's folder like everything else.
@Suite struct BundledAssetsFolderTests {
    /// A recipe folder `recipes/` with `recipes/assets/`, and a separate asset folder.
    struct Layout {
        let root: TemporaryDirectory
        var recipes: String { root.file("recipes") }
        var bundled: String { root.file("recipes/assets") }
        var assetFolder: String { root.file("assets-elsewhere") }
        init() throws {
            root = try TemporaryDirectory()
            for folder in ["recipes/assets", "assets-elsewhere"] {
                try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
            }
        }
        /// Writes a one-byte file at `relative` (inside the temporary root).
        func touch(_ relative: String) -> String {
            let path = root.file(relative)
            _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            return path
        }
        /// `image` resolved as an overlay of `recipes/r.yaml`, with the asset folder given or not.
        func resolve(_ image: String, withAssetFolder: Bool) -> Result<String, AssetResolver.Failure> {
            AssetResolver(assetDirectories: withAssetFolder ? [assetFolder] : [])
                .resolve(image, recipeFile: (recipes as NSString).appendingPathComponent("r.yaml"))
        }
    }

    @Test func theRecipesAssetsFolderIsSearchedLast() throws {
        let layout = try Layout()
        let sample = layout.touch("recipes/assets/logo.png")
        #expect(layout.resolve("logo.png", withAssetFolder: false) == .success(AssetResolver.realPath(sample)!))
        // An asset folder given (--assets, a folder's assets:) wins over the sample...
        let real = layout.touch("assets-elsewhere/logo.png")
        #expect(layout.resolve("logo.png", withAssetFolder: true) == .success(AssetResolver.realPath(real)!))
        // ...and the recipe's own folder wins over both.
        let beside = layout.touch("recipes/logo.png")
        #expect(layout.resolve("logo.png", withAssetFolder: true) == .success(AssetResolver.realPath(beside)!))
    }

    @Test func aMissingAssetNamesTheAssetsFolderOnlyWhenItExists() throws {
        let layout = try Layout()
        #expect(layout.resolve("bed.mp3", withAssetFolder: true)
                == .failure(.notFound("bed.mp3", searched: [layout.recipes, layout.assetFolder, layout.bundled])))
        try FileManager.default.removeItem(atPath: layout.bundled)
        #expect(layout.resolve("bed.mp3", withAssetFolder: false) == .failure(.notFound("bed.mp3", searched: [layout.recipes])))
    }

    @Test func aSymlinkInTheAssetsFolderPointingOutIsRefused() throws {
        let layout = try Layout()
        let outside = layout.touch("outside.png")
        try FileManager.default.createSymbolicLink(atPath: layout.root.file("recipes/assets/logo.png"), withDestinationPath: outside)
        #expect(layout.resolve("logo.png", withAssetFolder: false)
                == .failure(.outsideAssetFolders("logo.png", resolved: AssetResolver.realPath(outside)!)))
    }

    /// `assets` itself a symlink to a folder elsewhere: what it holds lies outside the
    /// recipe's folder, so it is refused (only the configured asset folders may be elsewhere).
    @Test func anAssetsFolderThatIsASymlinkOutIsRefused() throws {
        let layout = try Layout()
        try FileManager.default.removeItem(atPath: layout.bundled)
        let logo = layout.touch("assets-elsewhere/logo.png")
        try FileManager.default.createSymbolicLink(atPath: layout.bundled, withDestinationPath: layout.assetFolder)
        #expect(layout.resolve("logo.png", withAssetFolder: false)
                == .failure(.outsideAssetFolders("logo.png", resolved: AssetResolver.realPath(logo)!)))
        // Given as an asset folder, the same file is fine.
        #expect(layout.resolve("logo.png", withAssetFolder: true) == .success(AssetResolver.realPath(logo)!))
    }

    @Test func dotDotOutOfTheRecipesFolderIsRefused() throws {
        let layout = try Layout()
        let secret = layout.touch("secret.png")
        // From recipes/assets/, ../../secret.png is the root's secret.png: outside recipes/.
        #expect(layout.resolve("../../secret.png", withAssetFolder: false)
                == .failure(.outsideAssetFolders("../../secret.png", resolved: AssetResolver.realPath(secret)!)))
    }
}
