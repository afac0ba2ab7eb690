import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
@testable import DropcutTimeline

/// Issue 17, "no trap reachable from input": numbers a recipe or a sidecar holds that used
/// to stop dropcut with SIGILL (an `Int(Double)` past Int.max, a force-unwrap, Int64
/// overflow) are recipe errors at their line and column, naming the bound. A regression
/// here crashes the test process rather than failing one expectation, which is loud too.
@Suite struct RecipeTrapTests {
    /// The diagnostics of `yaml` loaded through `RecipeLoader().load(yaml:file:)` as
    /// `line:col: message`, or `["(valid)"]`. The file lives in `folder`, where `logo.png`
    /// and `bed.mp3` exist (empty: decoding only resolves them).
    static func errors(_ yaml: String) throws -> [String] {
        let folder = try TemporaryDirectory(prefix: "dropcut-traps")
        defer { withExtendedLifetime(folder) {} }
        _ = folder.write("logo.png", "")
        _ = folder.write("bed.mp3", "")
        do {
            _ = try RecipeLoader().load(yaml: yaml, file: folder.file("trap.yaml"))
            return ["(valid)"]
        } catch {
            return error.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        }
    }

    /// `template` with `VALUE` replaced by `value`, and the `line:col` where `VALUE` stood.
    static func place(_ value: String, in template: String) -> (yaml: String, position: String) {
        let lines = template.split(separator: "\n", omittingEmptySubsequences: false)
        let line = lines.firstIndex { $0.contains("VALUE") }!
        let column = lines[line].distance(from: lines[line].startIndex, to: lines[line].range(of: "VALUE")!.lowerBound) + 1
        return (template.replacingOccurrences(of: "VALUE", with: value), "\(line + 1):\(column)")
    }

    // MARK: The four traps of the issue

    @Test func bitrateTooLargeForAnInt() throws {
        // Was: "Double value cannot be converted to Int because the result would be greater than Int.max".
        #expect(try Self.errors("version: 1\noutput: { audio: { codec: aac, bitrate: 1e19 } }") ==
                ["2:41: output.audio.bitrate must be between 32k and 512k (got 1e19)"])
        for (value, column) in [("1e400", 41), ("-1e19", 41), ("9223372036854775807k", 41), ("1e300M", 41), ("\"inf\"", 41)] {
            let text = value.replacingOccurrences(of: "\"", with: "")
            #expect(try Self.errors("version: 1\noutput: { audio: { codec: aac, bitrate: \(value) } }") ==
                    ["2:\(column): output.audio.bitrate must be between 32k and 512k (got \(text))"])
        }
        #expect(try Self.errors("version: 1\noutput: { audio: { bitrate: NaN } }") ==
                ["2:29: output.audio.bitrate must be a bit rate like 160k; got 'NaN'"])
        #expect(try Self.errors("version: 1\noutput: { audio: { bitrate: 512k } }") == ["(valid)"])
    }

    @Test func fullwidthHexDigitsAreNotAColour() throws {
        // Was: `Int(_, radix: 16)!` on digits that `Character.isHexDigit` accepts.
        #expect(try Self.errors("version: 1\noverlays:\n  - text: hi\n    color: \"#ＦＦＦ\"") ==
                ["4:12: overlay color must be a colour #rgb, #rrggbb or #rrggbbaa; got '#ＦＦＦ'"])
        #expect(ColorParser.parse("#１２３４５６") == nil)
        #expect(ColorParser.parse("#ff00０0") == nil)
        #expect(ColorParser.parse("#Ff0000") == Color(red: 1, green: 0, blue: 0))
    }

    @Test func rampFarPastTheBound() throws {
        // Was: Int64 overflow multiplying ticks by step numbers in SpeedRamp.
        #expect(try Self.errors("""
        version: 1
        clips:
          - source: "{input}"
            ramp: [{at: 0, rate: 1}, {at: 1000000000, rate: 2}]
        """) == ["4:35: clips[0].ramp[1].at must be at most 24 hours (86400 s) (got 1000000000)"])
    }

    @Test(arguments: [
        ("  - { text: hi, size: VALUE }", "overlay size", ["5e9px", "1e19", "1e19%", "32769", "100.5%", "\"1e400px\""]),
        ("  - { text: hi, margin: VALUE }", "overlay margin", ["1e20", "1e20%", "-1e20", "\"inf%\"", "32768.5px"]),
        ("  - { image: logo.png, width: VALUE }", "overlay width", ["1e19", "1e19%", "5e9px", "101%"]),
    ])
    func overlayLengthsAreBounded(template: String, what: String, values: [String]) throws {
        // Were: `Int(width.rounded())` and friends trapping in the renderer.
        for value in values {
            let (yaml, position) = Self.place(value, in: "version: 1\noverlays:\n" + template)
            let text = value.replacingOccurrences(of: "\"", with: "")
            #expect(try Self.errors(yaml) == ["\(position): \(what) must be between 0 and 32768px or between 0 and 100% (got \(text))"],
                    "\(value)")
        }
        // A size or width is bounded by the output too (OverlayLimits: twice the largest
        // output, 16384 px, when the recipe takes the source's size); a margin is not.
        let largest = what == "overlay margin" ? "32768" : "16384"
        for value in [largest, largest + "px", "100%", "0.5%"] {
            #expect(try Self.errors(Self.place(value, in: "version: 1\noverlays:\n" + template).yaml) == ["(valid)"], "\(value)")
        }
    }

    // MARK: Times, everywhere a recipe writes one

    static let timeKeys: [(template: String, what: String)] = [
        ("clips:\n  - trim: [0, VALUE]", "clips[0].trim end"),
        ("clips:\n  - trim: [VALUE, end]", "clips[0].trim start"),
        ("clips:\n  - speed: [{ range: [1, VALUE], rate: 0.5 }]", "clips[0].speed[0].range end"),
        ("clips:\n  - ramp: [{ at: 0, rate: 1 }, { at: VALUE, rate: 2 }]", "clips[0].ramp[1].at"),
        ("transition: { kind: crossfade, duration: VALUE }", "transition.duration"),
        ("overlays:\n  - { text: hi, during: [0, VALUE] }", "overlay during end"),
        ("overlays:\n  - { text: hi, fade: { in: VALUE } }", "overlay fade.in"),
        ("overlays:\n  - { text: hi, move: { to: top, duration: VALUE } }", "overlay move duration"),
        ("music: { source: bed.mp3, offset: VALUE }", "music.offset"),
        ("music: { source: bed.mp3, fade: { out: VALUE } }", "music.fade.out"),
        ("music: { source: bed.mp3, duck: { attack: VALUE } }", "music.duck.attack"),
        ("music: { source: bed.mp3, duck: { windows: [[0, VALUE]] } }", "music.duck.windows[0] end"),
    ]

    /// Too large for a day, for a `MediaTime`, for an `Int64` or for a `Double`.
    static let hugeTimes = ["1e300", "1e19", "9223372036854775807", "99999999999999999999", "\"1e400\"", "\"99999999:00:00\"",
                            "\"9223372036854775807:00:00\"", "\"9223372036854775807ms\"", "\"9223372036854775807/1\"",
                            "86400.000000001", "\"24:00:01\"", "inf"]

    @Test(arguments: timeKeys)
    func hugeTimesNameTheBound(template: String, what: String) throws {
        for value in Self.hugeTimes {
            let (yaml, position) = Self.place(value, in: "version: 1\n" + template)
            let text = value.replacingOccurrences(of: "\"", with: "")
            #expect(try Self.errors(yaml) == ["\(position): \(what) must be at most 24 hours (86400 s) (got \(text))"], "\(value)")
        }
        for value in ["-1e19", "-1e300", "\"-9223372036854775808/1\""] {
            let (yaml, position) = Self.place(value, in: "version: 1\n" + template)
            let text = value.replacingOccurrences(of: "\"", with: "")
            #expect(try Self.errors(yaml) == ["\(position): \(what) must not be negative (got \(text))"], "\(value)")
        }
    }

    @Test func theBoundItselfAndMinusZeroAreTimes() throws {
        #expect(RecipeLimits.maximumTime == MediaTime(seconds: 86_400))
        #expect(try Self.errors("version: 1\nclips:\n  - trim: [-0, \"24:00:00\"]") == ["(valid)"])
        #expect(try Self.errors("version: 1\nclips:\n  - trim: [0, 86400]") == ["(valid)"])
        #expect(RecipeTime.parse("9223372036854775807:00:00") == nil)   // used to overflow multiplying into seconds
        #expect(RecipeTime.parse("153722867280912931:00") == nil)   // one minute more than Int64.max seconds
        #expect(RecipeTime.parse("153722867280912930:00") == .seconds(MediaTime(seconds: 9_223_372_036_854_775_800)))
    }

    // MARK: Other numbers

    @Test func ratesAndWholeNumbersPastTheirBounds() throws {
        for (value, column) in [("1e19", 16), ("1e300", 16), ("\"9223372036854775807/1\"", 16), ("inf", 16), ("-1e19", 16)] {
            let text = value.replacingOccurrences(of: "\"", with: "")
            #expect(try Self.errors("version: 1\noutput: { fps: \(value) }") == ["2:\(column): output.fps must be between 1 and 240 (got \(text))"])
        }
        #expect(try Self.errors("version: 1\noutput: { video: { crf: 9223372036854775808 } }") ==
                ["2:25: output.video.crf must be between 0 and 51 (got 9223372036854775808)"])
        #expect(try Self.errors("version: 1\noutput: { video: { crf: 1e19 } }") ==
                ["2:25: output.video.crf must be between 0 and 51 (got 1e19)"])
        #expect(try Self.errors("version: 1\noutput: { size: 99999999999999999999x1080 }") ==
                ["2:17: output.size must be between 16 and 8192 pixels a side (got 99999999999999999999x1080)"])
        #expect(try Self.errors("version: 1\nclips:\n  - speed: [{ range: [1, 2], rate: 1e19 }]") ==
                ["3:36: speed rate must be between 0.05 and 16 (got 1e19)"])
        #expect(try Self.errors("version: 1\nclips:\n  - ramp: [{ at: 0, rate: 1e400 }, { at: 1, rate: 1 }]") ==
                ["3:27: clips[0].ramp[0].rate must be between 0.05 and 16 (got 1e400)"])
        #expect(try Self.errors("version: 1\noverlays:\n  - { text: hi, opacity: NaN }") ==
                ["3:26: overlay opacity must be a number, got 'NaN'"])
        #expect(try Self.errors("version: 1\nmusic: { source: bed.mp3, gain: 1e400dB }") ==
                ["2:33: music.gain must be between -60 and 20 dB (got 1e400dB)"])
        #expect(try Self.errors("version: 1\noutput: { audio: { loudness: -1e400LUFS } }") ==
                ["2:30: output.audio.loudness must be between -60LUFS and -5LUFS (got -1e400LUFS)"])
        #expect(try Self.errors("version: 1e19") ==
                ["1:10: version must be between -9223372036854775808 and 9223372036854775807 (got 1e19)"])
    }

    @Test func frameNumberWidthIsBounded() throws {
        // Was: a name padded to 999,999,999,999 digits: "failed to allocate 1000000000048 bytes".
        #expect(try Self.errors("version: 1\noverlays:\n  - frames: \"a_%0999999999999d.png\"") ==
                ["3:13: overlay frames: the number in %0999999999999d must be at most 10 digits wide (got \"a_%0999999999999d.png\")"])
        #expect(try Self.errors("version: 1\noverlays:\n  - frames: \"a_%011d.png\"") ==
                ["3:13: overlay frames: the number in %011d must be at most 10 digits wide (got \"a_%011d.png\")"])
    }

    @Test func listsAndTextsAreBounded() throws {
        let keyframes = (0...1000).map { "{ at: \($0), rate: 1 }" }.joined(separator: ", ")
        #expect(try Self.errors("version: 1\nclips:\n  - ramp: [\(keyframes)]") ==
                ["3:11: clips[0].ramp must have at most 1000 keyframes (got 1001)"])
        let ranges = (0...1000).map { "{ range: [\($0), \($0).5], rate: 2 }" }.joined(separator: ", ")
        #expect(try Self.errors("version: 1\nclips:\n  - speed: [\(ranges)]") ==
                ["3:12: clips[0].speed must have at most 1000 ranges (got 1001)"])
        // Every 50 ms of glide is a speed range, and building costs their square.
        #expect(try Self.errors("version: 1\nclips:\n  - ramp: [{ at: 0, rate: 1 }, { at: 200, rate: 2 }, { at: 400, rate: 1 }]") ==
                ["3:11: clips[0].ramp must glide (change rate) for at most 300 s in all (got 400.000s)"])
        #expect(try Self.errors("version: 1\nclips:\n  - ramp: [{ at: 0, rate: 1 }, { at: 300, rate: 2 }, { at: 86400, rate: 2 }]") == ["(valid)"])
        #expect(try Self.errors("version: 1\noverlays:\n  - text: \"\(String(repeating: "é", count: 2049))\"") ==
                ["3:11: overlay text must be at most 4096 bytes (got 4098)"])
        #expect(try Self.errors("version: 1\noutput: { filename: \"\(String(repeating: "a", count: 252)).mp4\" }") ==
                ["2:21: output.filename must be at most 255 bytes, a file name's limit (got 256)"])
    }

    // MARK: Below the decoder

    @Test func speedRampNeverOverflowsAndSplitsLongHolds() {
        let here = SourceLocation(file: "t", line: 1, column: 1)
        // Ticks near Int64.max at 48 kHz: was `(end - start) * Int64(i)` overflowing.
        let huge = SpeedRamp.ranges([.init(at: .zero, rate: 1, location: here),
                                     .init(at: MediaTime(value: Int64.max / 48_000, timescale: 1), rate: 2, location: here)])
        #expect(huge.count == Int(SpeedRamp.maximumSteps))
        // A day held at 0.05 is 480 hours of output: more than an Int32 timescale of 48 kHz
        // ticks, so it comes as several ranges (it was silently dropped, i.e. played at 1x).
        let held = SpeedRamp.ranges([.init(at: .zero, rate: 0.05, location: here),
                                     .init(at: RecipeLimits.maximumTime, rate: 0.05, location: here)])
        #expect(held.count > 1)
        #expect(held.allSatisfy { $0.rate == MediaTime(value: 1, timescale: 20) })
        #expect(held.first.map { $0.range.start } == .seconds(.zero) && held.last.map { $0.range.end } == .seconds(RecipeLimits.maximumTime))
    }

    @Test func mediaTimeArithmeticSaturatesInsteadOfTrapping() {
        let most = MediaTime(value: .max, timescale: 1), least = MediaTime(value: .min, timescale: 1)
        // Was: -Int64.min. 2^63 s has no Int64 value at any timescale: +infinity; 2^63/2 s has.
        #expect(-least == .positiveInfinity)
        #expect(-MediaTime(value: .min, timescale: 2) == MediaTime(value: 1 << 62, timescale: 1))
        // Was: v*a*tb overflowing Int128 (2^63 * 2^63 * 2^31).
        let fine = MediaTime(value: .max, timescale: .max)
        #expect(most.multiplied(by: (most, fine)).isNumeric == false)   // ~2^94 s: +infinity
        #expect(most.multiplied(by: (most, fine)) == .positiveInfinity)
        // Both sides ~2^134 even once reduced: computed through Double, marked rounded.
        let near = MediaTime(value: 1 << 40 + 1, timescale: .max)
            .multiplied(by: (MediaTime(value: .max - 2, timescale: .max - 1), MediaTime(value: .max - 4, timescale: .max - 2)))
        let expected = Double(1 << 40 + 1) / Double(Int32.max) * (Double(Int32.max - 2) / Double(Int32.max - 1))
        #expect(near.isNumeric && near.hasBeenRounded)
        #expect(abs(near.seconds - expected) < 1e-6, "\(near.debugDescription)")
        // Was: n * (preferred / d) and n * fine overflowing in `exact`.
        #expect(most.multiplied(by: .max, dividedBy: 1) == .positiveInfinity)
        #expect(most.multiplied(by: .max, dividedBy: .max) == most)
        #expect(least.multiplied(by: .max, dividedBy: 3) == .negativeInfinity)
        let roundedDown = MediaTime.exact(Int128(Int64.max) * Int128(Int64.max), over: Int128(Int64.max) * 3 * 7, preferredTimescale: 1)
        #expect(roundedDown.isNumeric && abs(roundedDown.seconds - Double(Int64.max) / 21) < 1)
        #expect(MediaTime.multiplyDivide(Int128.max / 2, 1 << 32, Int128.max, rounding: .toNearestOrAwayFromZero) == 1 << 31)
        #expect(MediaTime.multiplyDivide(Int128.min / 2, 1 << 32, 3, rounding: .toNearestOrAwayFromZero) == nil)
        #expect(MediaTime.multiplyDivide(-7, 3, 2, rounding: .toNearestOrAwayFromZero) == -11)
        #expect(MediaTime.multiplyDivide(-(Int128.max / 2), 1 << 32, Int128.max, rounding: .toNearestOrAwayFromZero) == -(1 << 31))
    }

    @Test func frameRatesWithManyDecimalsKeepTheirFrameDuration() throws {
        // Was: the rate's value (59940059940, over 10^9) clamped into an Int32 timescale.
        let media = [TableProbe.clip("clip.mov", seconds: 2)]
        let ntsc = try CompositionBuilderTests.build("version: 1\noutput: { fps: 59.940059940 }\n", media)
        #expect(abs(ntsc.videoComposition.frameDuration.seconds - 1 / 59.940059940) < 1e-9, "\(ntsc.videoComposition.frameDuration.debugDescription)")
        let exact = try CompositionBuilderTests.build("version: 1\noutput: { fps: 30000/1001 }\n", media)
        #expect(exact.videoComposition.frameDuration == MediaTime(value: 1001, timescale: 30000))
        #expect(!exact.videoComposition.frameDuration.hasBeenRounded)
    }

    @Test func sidecarRegionsPastADayAreRefused() throws {
        let (path, message) = try SlowMotionSidecarTests.rejection(SlowMotionSidecarFixture.data(
            rate: 0.25, regions: [(start: Int64.max, duration: 600, timescale: 600)], compression: .zlib))
        #expect(message == "\(path): slowMotion.regions[0].timeRange ends at +INFINITY s, past 24 hours (86400 s); a slowed section lies within the clip")
        let (dayPath, dayMessage) = try SlowMotionSidecarTests.rejection(SlowMotionSidecarFixture.data(
            rate: 0.25, regions: [(start: 86_400 * 600, duration: 1, timescale: 600)], compression: .none))
        #expect(dayMessage == "\(dayPath): slowMotion.regions[0].timeRange ends at 86400.002 s, past 24 hours (86400 s); a slowed section lies within the clip")
    }
}
