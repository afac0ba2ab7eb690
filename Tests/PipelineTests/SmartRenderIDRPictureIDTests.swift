import Foundation
import Testing
import TestSupport

/// H.264 7.4.3 at a smart render's joins: two IDR access units in a row carry different
/// `idr_pic_id`s. An all-intra source (every picture an IDR, x264 numbering them 0, 1, 0,
/// 1…) is cut so that IDR pictures meet at every join — two copied ranges back to back,
/// and one-picture encoded pieces (x264's first id, 0) between copied groups — and
/// rendered with `dropcut render`; FFmpeg's own parser (trace_headers) reads the ids, the
/// stream decodes without a word, and the copied pictures decode to the source's.
@Suite(.tags(.slow)) struct SmartRenderIDRPictureIDTests {
    /// A 4 s 320x240 30 fps clip whose every picture is an IDR, CABAC or CAVLC.
    static func allIntra(_ dir: TemporaryDirectory, cavlc: Bool) throws -> String {
        let path = dir.file(cavlc ? "intra-cavlc.mp4" : "intra.mp4")
        try Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4", "-c:v", "libx264", "-g", "1"]
                              + (cavlc ? ["-x264-params", "cabac=0"] : [])
                              + ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-pix_fmt", "yuv420p"],
                              output: path)
        return path
    }

    /// `dropcut plan` and `dropcut render` of `yaml` on `clip`; the plan's video line, and
    /// the output, checked to decode silently and to repeat no IDR picture's id. Returns
    /// the ids trace_headers read, access unit by access unit.
    static func render(_ yaml: String, _ clip: String, _ dir: TemporaryDirectory) async throws -> (plan: String, output: String, ids: [[Int]]) {
        let recipe = dir.file("recipe.yaml"), output = dir.file("out.mp4")
        try yaml.write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try await DropcutProcess.run(["plan", clip, "--recipe", recipe])
        #expect(plan.status == 0, "\(plan)")
        let render = try await DropcutProcess.run(["render", clip, "--recipe", recipe, "--output", output])
        #expect(render.status == 0, "\(render)")
        let decode = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg -v error: \(decode.stderr)")
        let ids = try H264HeaderTrace.idrPictureIDs(of: output)
        #expect(H264HeaderTrace.repeatedIDRPictureIDs(ids).isEmpty, "repeated idr_pic_id: \(ids)")
        return (plan.stdout, output, ids)
    }

    /// Two ranges of one clip, 3 pictures each, copied back to back: the source's ids are
    /// 0 1 0 and 0 1 0; the second range's first two are renumbered (1, then 2 — neither
    /// the one before's id nor its own, so its third keeps its 0).
    @Test(arguments: [false, true]) func twoCopiedRangesBackToBack(cavlc: Bool) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.allIntra(dir, cavlc: cavlc)
        let (plan, output, ids) = try await Self.render("""
            version: 1
            clips:
              - { source: "{input}", trim: [1.0, 1.1] }
              - { source: "{input}", trim: [2.0, 2.1] }

            """, clip, dir)
        #expect(plan.contains("video: smart render from intra") && plan.contains("6 of 6 frames copied"), "\(plan)")
        #expect(ids == [[0], [1], [0], [1], [2], [0]], "\(ids)")
        let out = try SmartRenderTests.hashes(output), source = try SmartRenderTests.hashes(clip)
        #expect(out == Array(source[30..<33] + source[60..<63]), "the copied pictures decode to the source's")
    }

    /// One-picture encoded pieces (a caption on one frame) between copied groups: the
    /// encoded IDR picture (x264's id 0) is followed by the source's picture 32 (id 0), and
    /// follows its picture 40 (id 0) — both joins renumbered, every copied picture still
    /// decoding to the source's.
    @Test func encodedPicturesBetweenCopiedOnes() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.allIntra(dir, cavlc: false)
        // Output frame n shows source frame 31 + n; frames 0 and 10 are drawn on.
        let (plan, output, ids) = try await Self.render("""
            version: 1
            clips: [{ trim: [1.0333, 2] }]
            overlays:
              - { text: "A", during: [0, 0.03] }
              - { text: "B", during: [0.33, 0.36] }

            """, clip, dir)
        #expect(plan.contains("video: smart render from intra") && plan.contains("27 of 29 frames copied"), "\(plan)")
        #expect(ids.count == 29 && ids.allSatisfy { $0.count == 1 }, "\(ids)")
        #expect(ids.prefix(4) == [[0], [1], [2], [0]] && ids[9...11] == [[0], [1], [0]], "\(ids)")
        let out = try SmartRenderTests.hashes(output), source = try SmartRenderTests.hashes(clip)
        #expect(out.count == 29)
        #expect(Array(out[1..<10]) == Array(source[32..<41]) && Array(out[11...]) == Array(source[42..<60]),
                "the copied pictures decode to the source's")
    }
}
