import Foundation
import Testing
import TestSupport

@Suite(.tags(.slow)) struct PlanCommandTests {
    @Test func planPrintsTheCompositionAndDrawsTheTimeline() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 2)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        output: { filename: "{name}.slow.mp4", size: 640x360, fit: fill }
        clips:
          - speed: [{ range: [0.5, 1.0], rate: 0.5 }]
            frames: blend
            audio: varispeed
        """)
        let svg = dir.file("plan.svg")
        let result = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", svg, clip])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(clip) -> clip.slow.mp4"))
        #expect(result.stdout.contains("sourceTimeRange [0.500,+0.500] speed 0.50"))
        #expect(result.stdout.contains("composition duration 2.500"))
        // Both tracks list the slowed segment; the layer blends frames, the audio is tape-like.
        #expect(result.stdout.components(separatedBy: "timeRange [0.500,+1.000] from trackID").count == 3)
        #expect(result.stdout.contains("frames blend"))
        #expect(result.stdout.contains("scaled audio varispeed"))
        #expect(result.stdout.contains("video composition renderSize 640x360 frameDuration 1/30"))
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.hasPrefix("<svg") && drawing.contains("class=\"segment\""))
    }

    /// Captions not burnt in (a soft stream) are still listed cue by cue, in output time,
    /// and what was skipped reading them is said with the file and line.
    @Test func planListsEachCueAndTheCaptionWarnings() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 2)
        _ = try Fixtures.makeFile(in: dir.path, name: "clip.vtt", contents: """
        WEBVTT

        00:00.200 --> 00:00.900 align:middle
        <i>Hello</i> there
        00:01.000 --> 00:01.500
        second

        """)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "soft.yaml", contents: "version: 1\noutput: { captions: soft }\n")
        let result = try await DropcutProcess.run(["plan", "--recipe", recipe, clip])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("[0.200,+0.700] \"Hello there\""), "\(result.stdout)")
        #expect(result.stdout.contains("[1.000,+0.500] \"second\""), "\(result.stdout)")
        #expect(result.stdout.contains("warning: \(dir.file("clip.vtt")):3: the cue setting \"align:middle\" is not start, center, end, left or right"), "\(result.stdout)")
        #expect(result.stdout.contains("clip.vtt:5: a timing line with no blank line before it"), "\(result.stdout)")
    }

    /// Issue 30: what happens to each stream, and why a stream is not copied.
    @Test func planSaysWhichStreamsAreCopied() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Tagged BT.709, as phones tag their clips (an untagged one is re-encoded and tagged).
        let clip = dir.file("clip.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-color_primaries", "bt709",
                                          "-color_trc", "bt709", "-colorspace", "bt709", "-c:a", "aac", clip])
        let identity = try await DropcutProcess.run(["plan", clip])
        #expect(identity.status == 0, "\(identity.stderr)")
        #expect(identity.stdout.contains("\nvideo: copied from clip.mp4 (stream 0)\naudio: copied from clip.mp4 (stream 1)\n"), "\(identity.stdout)")
        let bed = try await Fixtures.makeGenerated(in: dir.path, name: "bed.wav", seconds: 2, audio: "sine=frequency=200:sample_rate=48000")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "bed.yaml", contents: """
        version: 1
        output: { size: 640x480 }
        music: { source: \(bed) }
        """)
        let music = try await DropcutProcess.run(["plan", "--recipe", recipe, clip])
        #expect(music.status == 0, "\(music.stderr)")
        #expect(music.stdout.contains("\nvideo: re-encoded: the size changes from 320x240 to 640x480; the picture is moved, scaled or turned\n"),
                "\(music.stdout)")
        #expect(music.stdout.contains("\naudio: re-encoded: a music bed is mixed in\n"), "\(music.stdout)")
    }

    /// The overlays' animations, spin and groups in the listing (seed 003's watermark).
    /// A file with a second video stream (a second angle): `plan` says it is left out (the
    /// render logs the same line), and the output carries the first, alone.
    @Test func aSecondVideoStreamIsNamedAsLeftOut() async throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("angles.mp4")
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                                     "-f", "lavfi", "-i", "smptebars=size=160x120:rate=30:duration=1",
                                     "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-preset", "ultrafast"], output: clip)
        let plan = try await DropcutProcess.run(["plan", clip])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("video: angles.mp4 stream 1 left out (an output carries one video stream: stream 0)"), "\(plan.stdout)")
        let output = dir.file("out.mp4")
        let render = try await DropcutProcess.run(["render", clip, "--output", output])
        #expect(render.status == 0, "\(render.stderr)")
        let streams = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,width", "-of", "csv=p=0", output])
        #expect(streams.split(whereSeparator: \.isNewline).map(String.init) == ["video,320"])
    }

    @Test func planListsOverlayAnimations() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 8)
        let result = try await DropcutProcess.run(["plan", "--recipe", Repository.path("recipes/spinning-watermark.yaml"), clip])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let group = try #require(lines.firstIndex { $0.hasPrefix("overlay group ") }, "\(result.stdout)")
        #expect(lines[group].hasSuffix("[2.000,+5.000] opacity 1.00 at 2.000 animating opacity 0.00 @0.000 linear 1.00 @5.000"), "\(lines[group])")
        #expect(lines[group + 1].hasPrefix("  overlay image logo.png top-left margin 10px"))
        #expect(lines[group + 1].hasSuffix("spun 0° about y seen from 500px animating spin 0.00 @0.000 linear 360.00 @5.000, repeat forever"),
                "\(lines[group + 1])")
        // The caption, a group in the group, its texts indented under it.
        #expect(lines[group + 2].hasPrefix("  overlay group 80x29 of 2 bottom-left margin 10px"), "\(lines[group + 2])")
        #expect(lines[group + 2].hasSuffix("[2.000,+5.000] opacity 0.85 at 2.000"), "\(lines[group + 2])")
        #expect(lines[group + 3].hasPrefix("    overlay text \"ACME\""))
        #expect(lines[group + 4].hasPrefix("    overlay text \"since 1949\""))
    }

    @Test func planReportsBadRecipesAndBadInputs() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "bad.yaml", contents: "version: 1\noutput: { fit: fil }\n")
        let bad = try await DropcutProcess.run(["plan", "--recipe", recipe, "x.mp4"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\(recipe):2:16: output.fit must be one of fit | fill | stretch"))
        let notMedia = try Fixtures.makeFile(in: dir.path, name: "notes.mp4", contents: "hello")
        let missing = try await DropcutProcess.run(["plan", notMedia])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains(notMedia))
        #expect(try await DropcutProcess.run(["plan", "--svg", dir.file("x.svg"), "a.mp4", "b.mp4"]).status == 64)
    }
}
