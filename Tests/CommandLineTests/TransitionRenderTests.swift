import Foundation
import Testing
import TestSupport

/// Push and wipe transitions rendered end to end, checked on the decoded pixels: at the
/// middle of a 1 s transition from a red clip to a blue one, the left half of the
/// picture is still red and the right half already blue; a quarter in, three quarters
/// are red.
@Suite(.tags(.slow)) struct TransitionRenderTests {
    static func solid(_ color: String, in dir: TemporaryDirectory) async throws -> String {
        let path = dir.file("\(color).mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "color=c=\(color):s=320x240:r=30:d=2",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// Cr (red-difference chroma) along the middle row: high for red, low for blue.
    static func crRow(_ frame: (y: [UInt8], u: [UInt8], v: [UInt8])) -> [Int] {
        (0..<160).map { Int(frame.v[60 * 160 + $0]) }
    }

    @Test(arguments: ["push", "wipe"])
    func transitionSplitsThePictureAtTheRampsPosition(kind: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let red = try await Self.solid("red", in: dir)
        _ = try await Self.solid("blue", in: dir)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "\(kind).yaml", contents: """
        version: 1
        output: { filename: "{name}.\(kind).mp4", size: 320x240, fps: 30, video: { crf: 10 } }
        clips:
          - source: red.mp4
          - source: blue.mp4
        transition: { kind: \(kind), duration: 1 }
        """)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, red])
        #expect(result.status == 0, "\(result.stderr)")
        let duration = Double(try FFprobe.format(of: output).duration ?? "0") ?? 0
        #expect(abs(duration - 3) < 1.0 / 30, "2 s + 2 s overlapping by 1 s: \(duration)")

        // The transition runs over [1, 2): frame 45 is its middle, frame 38 a quarter in.
        let middle = Self.crRow(try DecodedMedia.yuvFrame(of: output, index: 45, width: 320, height: 240))
        let quarter = Self.crRow(try DecodedMedia.yuvFrame(of: output, index: 38, width: 320, height: 240))
        let isRed = { (cr: Int) in cr > 200 }, isBlue = { (cr: Int) in cr < 140 }
        // Chroma columns: 160 across; allow 3 columns of blur at the seam.
        #expect(middle[0..<77].allSatisfy(isRed) && middle[83..<160].allSatisfy(isBlue), "\(kind) middle: \(middle)")
        let seam = 160 * 3 / 4 - Int((160.0 / 30).rounded())   // frame 38 is 8/30 s in, not 1/4
        #expect(quarter[0..<(seam - 8)].allSatisfy(isRed) && quarter[(seam + 8)...].allSatisfy(isBlue), "\(kind) quarter: \(quarter)")
    }
}
