import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `fit: smart` from the command line: `probe --reframe` prints what the analysis found,
/// `plan` says and `plan --svg` draws the camera path, and the analysis's memory does not
/// grow with the clip.
@Suite(.tags(.slow)) struct ReframeCommandTests {
    @Test func probeReframePrintsTheCutAndTheFaces() async throws {
        let dir = try TemporaryDirectory()
        let clip = try ReframeFixtures.cut(in: dir.path)
        let result = try await DropcutProcess.run(["probe", "--reframe", clip.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let summary = try #require(lines.first { $0.hasPrefix("reframe: ") }, "\(result.stdout)")
        #expect(summary.hasSuffix("2 shots, cuts at 2.500 s"), "\(summary)")
        // Before the cut, Hopper's face at the left (centre x 91 of 640); after it,
        // Collins's at the right (485).
        func faceCentres(_ line: String) -> [Double] {
            line.matches(of: #/face (\d+),\d+ (\d+)x\d+/#).map { Double($0.output.1)! + Double($0.output.2)! / 2 }
        }
        let before = lines.filter { $0.contains(" s  ") && ($0.dropFirst(2).split(separator: " ").first.flatMap { Double($0) } ?? 9) < 2.4 }
        let after = lines.filter { $0.contains(" s  ") && ($0.dropFirst(2).split(separator: " ").first.flatMap { Double($0) } ?? 0) > 2.6 }
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(before.flatMap(faceCentres).allSatisfy { abs($0 - 91) < 20 } && !before.flatMap(faceCentres).isEmpty, "\(before.prefix(3))")
        #expect(after.flatMap(faceCentres).allSatisfy { abs($0 - 485) < 20 } && !after.flatMap(faceCentres).isEmpty, "\(after.prefix(3))")
        // --reframe prints text.
        let json = try await DropcutProcess.run(["probe", "--json", "--reframe", clip.path])
        #expect(json.status != 0 && json.stderr.contains("--reframe prints text"))
    }

    @Test func planSaysAndDrawsThePath() async throws {
        let dir = try TemporaryDirectory()
        let clip = try ReframeFixtures.walk(in: dir.path)
        let recipe = dir.file("smart.yaml"), svg = dir.file("plan.svg")
        try "version: 1\noutput: { size: 1080x1920, fit: smart, smart: { smoothness: 0.3 } }\n".write(toFile: recipe, atomically: false, encoding: .utf8)
        let result = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", svg, clip.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("fit: smart walk.mp4 (subject auto, smoothness 0.30): window 203x360 of 640x360, 1 shot"), "\(result.stdout)")
        #expect(result.stdout.contains("  shot 0.000–6.000 s: moves, centre x "), "\(result.stdout)")
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        // The timeline, then the path: one window band, its centre line, the faces.
        #expect(drawing.contains("class=\"segment\"") && drawing.components(separatedBy: "class=\"window\"").count == 2)
        #expect(drawing.components(separatedBy: "<circle class=\"face\"").count > 30)
        #expect(XMLParser(data: Data(drawing.utf8)).parse(), "the drawing is well-formed XML")
        // The same path as `plan` prints for one deliverable among several.
        let set = dir.file("set.yaml")
        try """
        version: 1
        outputs:
          - { filename: "{name}.v.mp4", size: 1080x1920, fit: smart }
          - { filename: "{name}.f.mp4", size: 1080x1920, fit: fill }
        """.write(toFile: set, atomically: false, encoding: .utf8)
        let deliverables = try await DropcutProcess.run(["plan", "--recipe", set, clip.path])
        #expect(deliverables.status == 0, "\(deliverables.stderr)")
        #expect(deliverables.stdout.contains("  walk.v.mp4:\n    fit: smart walk.mp4"), "\(deliverables.stdout)")
        #expect(!deliverables.stdout.contains("walk.f.mp4:\n"))
    }

    /// The analysis keeps a few pictures whatever the clip's length: its peak memory on
    /// 16 s of 640x360 is within 10 % of 4 s.
    @Test func analysisMemoryDoesNotGrowWithTheClip() async throws {
        let dir = try TemporaryDirectory()
        let dropcut = try BuildProducts.executable(named: "dropcut")
        var peaks: [Double] = []
        for seconds in [4, 16] {
            let clip = dir.file("long\(seconds).mp4")
            try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                                    "-i", "testsrc2=size=640x360:rate=30:duration=\(seconds)",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip])
            // Measured through a small python3 (os.wait4): a child spawned straight from
            // this test process starts with the test process's own high-water mark.
            let script = "import os,sys\npid=os.posix_spawnp(sys.argv[1],sys.argv[1:],os.environ,file_actions=[(os.POSIX_SPAWN_OPEN,1,'/dev/null',os.O_WRONLY,0)])\n_,status,usage=os.wait4(pid,0)\n"
                + "print(os.waitstatus_to_exitcode(status),usage.ru_maxrss)"
            let result = try await Command.run("python3", ["-c", script, dropcut, "probe", "--reframe", clip])
            let fields = result.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(result.status == 0 && fields.count == 2 && fields[0] == 0, "\(result.stdout) \(result.stderr)")
            peaks.append((fields.last ?? 0) / 1024)
        }
        #expect(peaks[1] <= peaks[0] * 1.1, "peak \(peaks[0]) MiB for 4 s, \(peaks[1]) MiB for 16 s")
    }
}
