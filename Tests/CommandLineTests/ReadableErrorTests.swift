import Foundation
import Testing
import TestSupport

/// Every error a user sees names the file as it was given and says the cause in words;
/// FFmpeg's function, text and code follow on a detail line. One test per kind of
/// mistake a person makes: a file that is not media, one still being written, a codec
/// FFmpeg lacks, a picture without a duration, an unreadable recipe, a missing asset, an
/// audio item that is not sound.
@Suite(.tags(.slow)) struct ReadableErrorTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory(prefix: "dropcut-errors") }

    /// `dropcut render` run in `dir` (names relative, as a person types them).
    private func render(_ args: [String]) async throws -> (status: Int32, stderr: String) {
        let result = try await Command.run(BuildProducts.executable(named: "dropcut"), ["render"] + args + ["--output", dir.file("out.mp4")],
                                     directory: dir.path)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")), "no output for a failed render")
        return (result.status, result.stderr)
    }

    /// The line `dropcut render: NAME: ...` of stderr, and the detail line under it.
    private func message(_ stderr: String) -> (line: String, detail: String?) {
        let lines = stderr.split(separator: "\n").map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasPrefix("dropcut render: ") || $0.contains(".yaml:") }) else {
            return ("", nil)
        }
        let next = index + 1 < lines.count ? lines[index + 1] : ""
        return (lines[index], next.hasPrefix("  detail: ") ? next : nil)
    }

    @Test func aFileThatIsNotMediaIsSaidToBeSoWithFFmpegsAccountAsTheDetail() async throws {
        _ = try Fixtures.makeFile(in: dir.path, name: "broken.mp4", contents: "this is a shopping list, not a video\n")
        let result = try await render(["broken.mp4"])
        #expect(result.status == 1)
        let (line, detail) = message(result.stderr)
        #expect(line == "dropcut render: broken.mp4: is not a video or audio file dropcut can read", "\(result.stderr)")
        #expect(detail?.contains("avformat_open_input: Invalid data found when processing input (-1094995529)") == true,
                "\(result.stderr)")
    }

    @Test func aMovieStillBeingWrittenIsSaidToBeIncomplete() async throws {
        // The index (moov) comes last without faststart: the first half is what a copy in
        // progress leaves.
        let clip = try await Fixtures.makeClip(in: dir.path, name: "whole.mp4", seconds: 2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: dir.file("copying.mp4")))
        let result = try await render(["copying.mp4"])
        #expect(result.status == 1)
        let (line, detail) = message(result.stderr)
        #expect(line.hasPrefix("dropcut render: copying.mp4: the file is incomplete"), "\(result.stderr)")
        #expect(line.contains("still being written"))
        #expect(detail?.contains("avformat_open_input") == true)
    }

    @Test func aCodecFFmpegDoesNotKnowIsNamed() async throws {
        // A Matroska file whose video CodecID no decoder claims (the same length as the
        // real one, so the file stays well formed).
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", audio: false)
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", clip, "-c", "copy",
                                          dir.file("clip.mkv")])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("clip.mkv")))
        let known = Data("V_MPEG4/ISO/AVC".utf8), unknown = Data("V_MPEG4/ISO/XYZ".utf8)
        let range = try #require(bytes.range(of: known))
        bytes.replaceSubrange(range, with: unknown)
        try bytes.write(to: URL(fileURLWithPath: dir.file("odd.mkv")))
        let result = try await render(["odd.mkv"])
        #expect(result.status == 1)
        #expect(message(result.stderr).line == "dropcut render: odd.mkv: its video uses a codec this build of FFmpeg cannot decode (none)",
                "\(result.stderr)")
    }

    @Test func aPictureWithoutADurationSaysHowToGiveItOne() async throws {
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=red:size=64x48", "-frames:v", "1", dir.file("photo.png")])
        let result = try await render(["photo.png"])
        #expect(result.status == 1)
        let line = message(result.stderr).line
        #expect(line.hasPrefix("dropcut render: photo.png: is a still image (64x48)"), "\(result.stderr)")
        #expect(line.contains("duration"))
    }

    @Test func anUnreadableRecipeIsNamedWithItsCause() async throws {
        _ = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4")
        try Data([0x76, 0x65, 0x72, 0xFF, 0xFE, 0x00, 0x9F]).write(to: URL(fileURLWithPath: dir.file("binary.yaml")))
        let binary = try await render(["--recipe", "binary.yaml", "clip.mp4"])
        #expect(binary.status == 1)
        #expect(binary.stderr.contains("binary.yaml: the recipe is not UTF-8 text"), "\(binary.stderr)")
        try FileManager.default.createDirectory(atPath: dir.file("folder.yaml"), withIntermediateDirectories: true)
        let folder = try await render(["--recipe", "folder.yaml", "clip.mp4"])
        #expect(folder.status == 1)
        #expect(folder.stderr.contains("folder.yaml: the recipe is not a regular file"), "\(folder.stderr)")
    }

    @Test func aMissingAssetIsNamedAtItsLine() async throws {
        _ = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4")
        _ = try Fixtures.makeFile(in: dir.path, name: "bed.yaml", contents: "version: 1\nmusic:\n  source: nothere.mp3\n")
        let result = try await render(["--recipe", "bed.yaml", "clip.mp4"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bed.yaml:3:11: music.source 'nothere.mp3' not found"), "\(result.stderr)")
    }

    @Test func anAudioItemThatIsNotSoundIsARecipeErrorAtItsLine() async throws {
        _ = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4")
        _ = try Fixtures.makeFile(in: dir.path, name: "notes.yaml", contents: "version: 1\n")
        _ = try Fixtures.makeFile(in: dir.path, name: "voice.yaml",
                                  contents: "version: 1\naudio:\n  - source: notes.yaml\n    at: 0\n")
        let result = try await render(["--recipe", "voice.yaml", "clip.mp4"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("voice.yaml:3:5: audio source notes.yaml: is not a video or audio file dropcut can read"),
                "\(result.stderr)")
        #expect(result.stderr.contains("  detail: avformat_open_input"))
    }

    @Test func aFileThatDoesNotExistIsSaidNotToExist() async throws {
        let result = try await render(["nowhere.mp4"])
        #expect(result.status == 1)
        #expect(message(result.stderr).line == "dropcut render: nowhere.mp4: the file does not exist", "\(result.stderr)")
    }
}
