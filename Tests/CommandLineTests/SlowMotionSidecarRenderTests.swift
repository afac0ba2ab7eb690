import Foundation
import Testing
import TestSupport

/// iPhone originals whose slow motion lives in an `.AAE` sidecar: dropcut finds the
/// sidecar next to the clip (any letter case), slows its regions with stepped edges, lets
/// a recipe's own speeds win, and refuses a broken sidecar by name.
@Suite(.tags(.slow)) struct SlowMotionSidecarRenderTests {
    /// The issue's example region (2.805 s + 13.09 s at a quarter speed, timescale 1e9) on
    /// a 16.5 s clip: `plan` lists the sidecar and the slowed segments, and the composition
    /// lasts what the stepped ramps and the quarter-speed middle add up to.
    @Test func planAppliesTheSidecarsRegion() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, "IMG_0283.MOV", seconds: 16.5)
        let sidecar = dir.file("IMG_0283.AAE")
        try SlowMotionSidecarFixture.write(to: sidecar, rate: 0.25,
                                           regions: [(start: 2_805_000_000, duration: 13_090_000_000, timescale: 1_000_000_000)],
                                           compression: .rawDeflate)
        let result = try await DropcutProcess.run(["plan", clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("slow motion from \(sidecar): rate 0.25"), "\(result.stdout)")
        // Normal speed up to the region, then steps down to the quarter speed.
        #expect(result.stdout.contains("timeRange [0.000,+2.805] from trackID 1 of asset \(clip) sourceTimeRange [0.000,+2.805] speed 1.00"))
        #expect(result.stdout.contains("sourceTimeRange [3.005,+12.690] speed 0.25"), "\(result.stdout)")
        // 2.805 + 2 × 0.2 s ramps in four 50 ms steps (rates 0.906 0.719 0.531 0.344)
        // + 12.69 / 0.25 + the 0.605 s after the region.
        let ramp = [0.90625, 0.71875, 0.53125, 0.34375].map { 0.05 / $0 }.reduce(0, +)
        let expected = 2.805 + 2 * ramp + 12.69 / 0.25 + 0.605
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("composition duration ") } ?? ""
        let duration = Double(line.dropFirst("composition duration ".count)) ?? 0
        #expect(abs(duration - expected) < 0.002, "composition lasts \(duration) s, expected \(expected) s")
    }

    /// A 3 s clip whose sidecar (`.aae`, zlib-compressed) slows [1, 2] s to half speed:
    /// the render lasts 1 + ≈2.1 + 1 s, picture and sound together; a sidecar-free render
    /// of the same clip lasts 3 s.
    @Test(arguments: [SlowMotionSidecarFixture.Compression.zlib, .none])
    func renderSlowsTheRegion(compression: SlowMotionSidecarFixture.Compression) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, "clip.mov", seconds: 3)
        try SlowMotionSidecarFixture.write(to: dir.file("clip.aae"), rate: 0.5,
                                           regions: [(start: 600, duration: 600, timescale: 600)], compression: compression)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        // Ramps of 0.2 s at each edge (rates 0.9375 0.8125 0.6875 0.5625 on 50 ms), the
        // 0.6 s middle at half speed.
        let ramp = [0.9375, 0.8125, 0.6875, 0.5625].map { 0.05 / $0 }.reduce(0, +)
        let expected = 1 + 2 * ramp + 0.6 / 0.5 + 1
        for stream in try FFprobe.facts(of: output) {
            let seconds = stream.duration ?? 0
            #expect(abs(seconds - expected) < 1.0 / 30 + 0.03, "\(stream.codecType ?? "?") lasts \(seconds) s, expected \(expected) s")
        }
    }

    /// A recipe that sets its own speed is followed as written: the sidecar is ignored.
    @Test func recipeSpeedWinsOverTheSidecar() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, "clip.MOV", seconds: 3)
        try SlowMotionSidecarFixture.write(to: dir.file("clip.AAE"), rate: 0.25,
                                           regions: [(start: 600, duration: 600, timescale: 600)], compression: .none)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "fast.yaml", contents: """
        version: 1
        clips:
          - speed: [{ range: [0, 1], rate: 2 }]
        """)
        let result = try await DropcutProcess.run(["plan", "--recipe", recipe, clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("slow motion from"))
        #expect(result.stdout.contains("composition duration 2.500"), "\(result.stdout)")
    }

    /// A sidecar that is not what it claims is an error naming it; nothing is written.
    @Test func brokenSidecarIsAnErrorNamingIt() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, "clip.mov", seconds: 1)
        let sidecar = try Fixtures.makeFile(in: dir.path, name: "clip.AAE", contents: "<?xml version=\"1.0\"?><plist><dict><key>adjustmentData</key><data>bm90IGEgcGxpc3Q=</data></dict></plist>")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])
        #expect(result.status == 1)
        #expect(result.stderr.contains(sidecar), "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("out") || $0.hasPrefix(".out") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    private static func makeClip(_ dir: TemporaryDirectory, _ name: String, seconds: Double) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: name, seconds: seconds,
                                   video: "testsrc2=size=160x120:rate=30:duration=\(seconds)",
                                   audio: "sine=frequency=440:sample_rate=48000:duration=\(seconds)")
    }
}
