import Foundation
import DropcutRecipe
import TestSupport
import DropcutTimeline

/// Loads `yaml` as the file `test.yaml` in `directory` (written there, so asset paths
/// resolve against it) and returns the recipe or its diagnostics as
/// `line:col: message` strings.
func loadRecipe(_ yaml: String, in directory: TemporaryDirectory? = nil, assets: [String] = [],
                name: String = "test.yaml") -> Result<Recipe, Problems> {
    let file: String
    if let directory {
        file = directory.file(name)
        _ = FileManager.default.createFile(atPath: file, contents: Data(yaml.utf8))
    } else {
        file = name
    }
    let loader = RecipeLoader(resolver: AssetResolver(assetDirectories: assets))
    do {
        let recipe = directory == nil ? try loader.load(yaml: yaml, file: file) : try loader.load([file])
        return .success(recipe)
    } catch {
        return .failure(Problems(lines: error.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }))
    }
}

/// A recipe's diagnostics as `line:col: message` lines.
struct Problems: Error {
    var lines: [String]
}

/// The diagnostics of a recipe that must fail, or `["(valid)"]`.
func problems(_ yaml: String, in directory: TemporaryDirectory? = nil, assets: [String] = []) -> [String] {
    switch loadRecipe(yaml, in: directory, assets: assets) {
    case .success: return ["(valid)"]
    case let .failure(problems): return problems.lines
    }
}

/// Real asset files for recipes, made by the ffmpeg CLI (tests only; once per test
/// process, then copied): logo.png, bed.mp3, intro.mp4, outro.mp4.
func makeAssets(in directory: TemporaryDirectory) throws {
    try Fixtures.generate(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=64x32", "-frames:v", "1"], output: directory.file("logo.png"))
    try Fixtures.generate(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=200:duration=2"], output: directory.file("bed.mp3"))
    for name in ["intro.mp4", "outro.mp4"] {
        try Fixtures.generate(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=1", "-pix_fmt", "yuv420p"],
                              output: directory.file(name))
    }
}

/// The repository's `recipes/` folder.
let recipesDirectory = Repository.path("recipes")

/// The sample assets shipped beside the example recipes (`recipes/assets/make-assets`).
let shippedAssetsDirectory = Repository.path("recipes/assets")

/// A probe answering from a table, so the builder is tested without media files
/// (the builder's input is the probe protocol; MediaIO probes real files).
struct TableProbe: MediaProbing {
    var table: [String: ProbedMedia]
    struct Unknown: Error, CustomStringConvertible {
        let path: String
        var description: String { "not a media file: \(path)" }
    }
    func probe(_ path: String) throws -> ProbedMedia {
        if let media = table[path] { return media }
        if let media = table[(path as NSString).lastPathComponent] { return media }
        throw Unknown(path: path)
    }

    /// A phone clip: `seconds` long, video `width`x`height` at `fps`, rotated by
    /// `quarterTurns`, with 48 kHz stereo audio unless `audio` is false.
    static func clip(_ path: String, seconds: Int64, width: Int = 1920, height: Int = 1080, fps: Int32 = 30,
                     quarterTurns: Int = 0, audio: Bool = true) -> ProbedMedia {
        let range = TimeRange(start: .zero, duration: MediaTime(seconds: seconds))
        let size = PixelSize(width: width, height: height)
        return ProbedMedia(
            path: path, duration: range.duration,
            video: .init(trackID: 1, timeRange: range, naturalSize: size,
                         preferredTransform: .orientation(quarterTurns: quarterTurns, naturalSize: size),
                         frameDuration: MediaTime(value: 1, timescale: fps)),
            audio: audio ? .init(trackID: 2, timeRange: range) : nil)
    }

    static func music(_ path: String, seconds: Int64) -> ProbedMedia {
        ProbedMedia(path: path, duration: MediaTime(seconds: seconds),
                    audio: .init(trackID: 1, timeRange: TimeRange(start: .zero, duration: MediaTime(seconds: seconds))))
    }
}

extension TemporaryDirectory {
    /// Writes `text` to `name` in this directory and returns the file's path.
    func write(_ name: String, _ text: String) -> String {
        let path = file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// Writes `bytes` to `name` in this directory and returns the file's path.
    func write(_ name: String, _ bytes: Data) -> String {
        let path = file(name)
        _ = FileManager.default.createFile(atPath: path, contents: bytes)
        return path
    }
}

/// Sound levels handed to the builder without decoding anything: `decibels` in 20 ms
/// windows (empty: silence). Records how often it was asked, so tests can tell that the
/// builder measured exactly when the music ducks under the clips.
final class FixedLevels: SoundLevelMeasuring, @unchecked Sendable {
    let levels: SoundLevels
    private(set) var calls = 0

    init(decibels: [Double] = []) {
        levels = SoundLevels(window: MediaTime(value: 1, timescale: 50), decibels: decibels)
    }

    /// `level` dBFS in `[from, to)` seconds, silence elsewhere, until `seconds`.
    convenience init(level: Double, during ranges: [(from: Double, to: Double)], seconds: Double) {
        self.init(decibels: (0..<Int(seconds * 50)).map { i in
            let t = Double(i) / 50
            return ranges.contains { t >= $0.from && t < $0.to } ? level : -.infinity
        })
    }

    func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
        calls += 1
        return levels
    }
}
