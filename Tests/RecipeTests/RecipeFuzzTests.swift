import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport

@Suite struct RecipeFuzzTests {
    /// Replacement values of other types, for "swapped types" mutations.
    static let foreignValues = ["[1, 2]", "{ a: 1 }", "\"text\"", "-5", "", "~", "0", "1e309", "end", "\"{nope}\"", "[[[]]]", "&a 1", "*a", "!!binary aGk="]

    /// Numbers past every bound, or that are numbers to one parser and not to another
    /// (issue 17: `Int(1e19)`, fullwidth digits, Int64 tick overflow used to trap).
    static let oddNumbers = ["1e19", "1e300", "-1e19", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
                             "１２", "\"#ＦＦ０\"", "NaN", "inf", "-inf", "-0", "1e400", "\"1e400\"", "0x1p1023", "4294967296",
                             "\"99999999:00:00\"", "\"9223372036854775807:00:00\"", "\"9223372036854775807/1\"", "5e9px", "1e19%",
                             "1e19k", "1e400dB", "86400.000000001"]

    /// Replaces one number of the recipe (a run of digits, with its sign, point and unit
    /// suffix) with one of `oddNumbers`.
    static func replaceNumber(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
        var starts: [Int] = []
        for i in bytes.indices where isDigit(bytes[i]) && (i == 0 || !(isDigit(bytes[i - 1]) || bytes[i - 1] == UInt8(ascii: "."))) {
            starts.append(i > 0 && bytes[i - 1] == UInt8(ascii: "-") ? i - 1 : i)
        }
        guard let start = starts.randomElement(using: &rng) else { return bytes }
        var end = start + 1
        while end < bytes.count, isDigit(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        // The unit goes with the number (`160k`, `-10dB`, `24px`, `4%`, `250ms`).
        while end < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[end] | 0x20) || bytes[end] == UInt8(ascii: "%") { end += 1 }
        return Array(bytes[..<start]) + Array(oddNumbers.randomElement(using: &rng)!.utf8) + Array(bytes[end...])
    }

    static func mutate(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        switch Int.random(in: 0..<6, using: &rng) {
        case 5:   // a number past its bounds
            return replaceNumber(bytes, using: &rng)
        case 0:   // flip a byte
            var out = bytes
            if !out.isEmpty { out[Int.random(in: 0..<out.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            return out
        case 1:   // delete a line
            if !lines.isEmpty { lines.remove(at: Int.random(in: 0..<lines.count, using: &rng)) }
        case 2:   // duplicate a line
            if !lines.isEmpty { let i = Int.random(in: 0..<lines.count, using: &rng); lines.insert(lines[i], at: i) }
        case 3:   // swap a value's type
            let candidates = lines.indices.filter { lines[$0].contains(UInt8(ascii: ":")) }
            if let i = candidates.randomElement(using: &rng), let colon = lines[i].firstIndex(of: UInt8(ascii: ":")) {
                lines[i] = Array(lines[i][...colon]) + Array((" " + foreignValues.randomElement(using: &rng)!).utf8)
            }
        default:  // indent or dedent a line
            if !lines.isEmpty {
                let i = Int.random(in: 0..<lines.count, using: &rng)
                if Bool.random(using: &rng) { lines[i] = Array("  ".utf8) + lines[i] } else { lines[i] = Array(lines[i].drop { $0 == UInt8(ascii: " ") }) }
            }
        }
        return Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }

    /// Loads the mutant at `path`: nil when it is a valid recipe, else its error, checked
    /// to carry diagnostics, each with a position in the mutant's file (or the whole file,
    /// line 0, for one that cannot be read as text: not UTF-8) and a message.
    static func loadChecked(_ path: String, with loader: RecipeLoader, iteration: Int) -> RecipeError? {
        do {
            _ = try loader.load([path])
            return nil
        } catch {
            #expect(!error.diagnostics.isEmpty, "iteration \(iteration): an error without diagnostics")
            for diagnostic in error.diagnostics {
                let placed = diagnostic.location.line >= 1 && diagnostic.location.column >= 1
                let wholeFile = diagnostic.location.line == 0 && diagnostic.location.column == 0 && error.diagnostics.count == 1
                #expect(diagnostic.location.file == path && (placed || wholeFile)
                        && !diagnostic.message.isEmpty, "iteration \(iteration): \(diagnostic)")
            }
            return error
        }
    }

    /// Loads `count` mutants of the example recipes, each made with `rounds` calls of
    /// `mutate`, and checks that every rejection has positions in the mutant's file.
    /// Returns how many loaded, how many were rejected, and how many of those named a bound.
    static func loadMutants(_ count: Int, prefix: String, seed: UInt64, rounds: ClosedRange<Int>,
                            _ mutate: ([UInt8], inout SplitMix64) -> [UInt8]) throws -> (valid: Int, rejected: Int, namingABound: Int) {
        let dir = try TemporaryDirectory(prefix: "dropcut-\(prefix)")
        defer { withExtendedLifetime(dir) {} }
        // The mutants live in a temporary folder: the shipped samples come in as an asset folder.
        let loader = RecipeLoader(resolver: AssetResolver(assetDirectories: [shippedAssetsDirectory]))
        let files = try FileManager.default.contentsOfDirectory(atPath: recipesDirectory).filter { $0.hasSuffix(".yaml") }.sorted()
        var rng = SplitMix64(state: seed)
        var valid = 0, rejected = 0, namingABound = 0
        for iteration in 0..<count {
            let name = files[iteration % files.count]
            var bytes = Array(FileManager.default.contents(atPath: (recipesDirectory as NSString).appendingPathComponent(name)) ?? Data())
            for _ in 0..<Int.random(in: rounds, using: &rng) { bytes = mutate(bytes, &rng) }
            let path = dir.file("\(prefix)-\(iteration % 8).yaml")
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            if let error = Self.loadChecked(path, with: loader, iteration: iteration) {
                rejected += 1
                if error.diagnostics.contains(where: { $0.message.contains("at most") || $0.message.contains("between") }) { namingABound += 1 }
            } else {
                valid += 1
            }
        }
        return (valid, rejected, namingABound)
    }

    /// The mutants are made from the example recipes, so a key reaches the fuzzing only
    /// through an example that writes it: every `audio:` item key is in one
    /// (recipes/voiceover.yaml).
    @Test func theFuzzedExamplesWriteEveryAudioItemKey() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: recipesDirectory).filter { $0.hasSuffix(".yaml") }
        let text = try files.map { try String(contentsOfFile: (recipesDirectory as NSString).appendingPathComponent($0), encoding: .utf8) }.joined()
        let keys = RecipeReference.keys.filter { $0.path == "audio" || $0.path.hasPrefix("audio[].") }
        #expect(keys.count == 11)
        for key in keys {
            #expect(text.contains("\(key.name):"), "no example writes \(key.path)")
        }
    }

    /// A still image's `clips[].duration` reaches the fuzzing through
    /// recipes/ken-burns-photo.yaml, beside a `ken_burns` (numbers and types mutated there).
    @Test func theFuzzedExamplesWriteAStillClipDuration() throws {
        let recipe = try exampleRecipe("ken-burns-photo.yaml")
        #expect(recipe.clips.contains { $0.duration != nil && $0.kenBurns != nil })
        #expect(RecipeReference.keys.contains { $0.path == "clips[].duration" })
    }

    @Test func mutatedExampleRecipesAreValidOrErrorsWithPositions() throws {
        let (valid, rejected, _) = try Self.loadMutants(3000, prefix: "fuzz", seed: 0xD509_C07, rounds: 1...3) { Self.mutate($0, using: &$1) }
        // Both outcomes occur: the mutations are neither all harmless nor all fatal.
        #expect(valid > 100 && rejected > 1000, "valid \(valid), rejected \(rejected)")
    }

    /// Only numbers mutated, into `oddNumbers`: every mutant is valid or rejected with
    /// positions, and none traps (a trap ends the test process). About 1,500 loads, a
    /// second or two.
    @Test func oddNumbersInNumericPositionsAreErrorsNotTraps() throws {
        let started = ContinuousClock.now
        let (valid, rejected, namingABound) = try Self.loadMutants(1500, prefix: "numbers", seed: 0x1_55E_17, rounds: 1...2) {
            Self.replaceNumber($0, using: &$1)
        }
        // Mostly rejected, most of those with the bound named; a few mutants stay valid
        // (`-0`, a number inside a file name); and the whole run stays short.
        #expect(rejected > 1000 && valid > 0 && namingABound > 500, "valid \(valid), rejected \(rejected), naming a bound \(namingABound)")
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    /// `outputs:` with every entry key, `size` classes and bounds, posters at a time and at
    /// `best`, a preview, an HLS ladder: mutated (bytes, lines, types, numbers past
    /// their bounds), each mutant is valid or rejected with positions in its file, never a
    /// trap.
    @Test func mutatedOutputsAreValidOrErrorsWithPositions() throws {
        let seed = """
            version: 1
            output: { size: { max: 1920x1080 }, fps: 30, video: { codec: h264, crf: 20, preset: veryfast }, audio: { codec: aac, bitrate: 160k } }
            outputs:
              - { filename: "{name}.vertical.mp4", size: 1080x1920, fit: fill, video: { crf: 28 } }
              - { filename: "{name}.square.mov", size: 720p, fit: stretch, fps: 25, audio: { bitrate: 96k, loudness: -16LUFS } }
              - { filename: "{name}.wide.m4v", size: { max: 1280x720 }, deinterlace: off, dynamic_range: source, video: { codec: hevc } }
              - { filename: "{name}.poster.jpg", poster: { at: 2.5s } }
              - { filename: "{name}.best.png", size: 2160p, poster: { at: best } }
              - { filename: "{name}.preview.webp", preview: { from: 0.5s, duration: 3s, width: 320, fps: 10 } }
              - { filename: "{name}.m3u8", size: 1080p, hls: { heights: [1080, 720, 480], segment: 4s } }

            """
        let dir = try TemporaryDirectory(prefix: "dropcut-outputs-fuzz")
        defer { withExtendedLifetime(dir) {} }
        let loader = RecipeLoader(resolver: AssetResolver(assetDirectories: []))
        var rng = SplitMix64(state: 0x0_07_9075)
        var valid = 0, rejected = 0
        for iteration in 0..<1500 {
            var bytes = Array(seed.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) { bytes = Self.mutate(bytes, using: &rng) }
            let path = dir.file("outputs-\(iteration % 8).yaml")
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            if Self.loadChecked(path, with: loader, iteration: iteration) != nil { rejected += 1 } else { valid += 1 }
        }
        #expect(valid > 100 && rejected > 700, "valid \(valid), rejected \(rejected)")
    }
}
