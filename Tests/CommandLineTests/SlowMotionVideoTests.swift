import Foundation
import Testing
import TestSupport

/// Slow motion's pictures, checked frame by frame on generated clips whose frames say
/// which source frame they are: exact frame choice at 240 fps, repeat vs blend at 30 fps,
/// and picture/sound sync through a slowed section.
@Suite(.tags(.slow)) struct SlowMotionVideoTests {
    /// A 240 fps clip slowed 8× into 30 fps shows every source frame of the slowed range
    /// exactly once, in order; outside it, every eighth frame.
    @Test func slowedHighFrameRateShowsEverySourceFrameOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Frame number N in binary: eight 40-pixel bars, bar k white when bit k is set.
        let clip = try Self.makeVideo(dir, "hfr.mp4", fps: 240, seconds: 1,
                                      luma: "if(mod(floor(N/pow(2,floor(X/40))),2),235,16)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        output: { fps: 30 }
        clips:
          - speed: [{ range: [0.25, 0.75], rate: 0.125 }]
        """)
        let output = dir.file("slow.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")

        let shown = try DecodedMedia.lumaFrames(of: output, width: 320, height: 240).map { frame in
            (0..<8).reduce(0) { number, bit in
                let x = bit * 40 + 20, y = 120
                return Self.mean(frame, x: x - 8..<x + 8, y: y - 8..<y + 8, width: 320) > 126 ? number | 1 << bit : number
            }
        }
        // 0.25 s at 1x (8 frames: 0, 8, …), 0.5 s at 1/8 (4 s: frames 8…127 at source
        // 0.25 + (t − 0.25)/8 → 60…179), 0.25 s at 1x (7 frames, from t = 128/30 → 184).
        let expected = (0..<8).map { $0 * 8 } + (60..<180) + (0..<7).map { 184 + $0 * 8 }
        #expect(shown.count == expected.count, "\(shown.count) frames")
        let wrong = zip(shown, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "output frame: shown/expected source frame \(wrong.prefix(10).map { "\($0.offset): \($0.element.0)/\($0.element.1)" })")
        let slowed = Array(shown[8..<min(128, shown.count)])
        #expect(zip(slowed, slowed.dropFirst()).allSatisfy { $1 == $0 + 1 }, "slowed range skips or repeats a frame")
    }

    /// A 30 fps clip at quarter speed: by default each source frame is shown four times;
    /// with `frames: blend` the in-between frames mix the two neighbours by their time
    /// distance (1/4, 1/2, 3/4 of the way).
    @Test(arguments: ["repeat", "blend"])
    func quarterSpeedRepeatsOrBlendsFrames(mode: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeVideo(dir, "ramp.mp4", fps: 30, seconds: 1, luma: "16+6*N")   // grey level says the frame
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        output: { fps: 30 }
        clips:
          - speed: [{ range: [0.2, 0.6], rate: 0.25 }]
            frames: \(mode)
        """)
        let output = dir.file("slow.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")

        let levels = try DecodedMedia.lumaFrames(of: output, width: 320, height: 240).map {
            Self.mean($0, x: 100..<220, y: 80..<160, width: 320)
        }
        #expect(levels.count == 66, "\(levels.count) frames for 0.2 + 1.6 + 0.4 s")
        var worst = 0.0
        for (k, level) in levels.enumerated() {
            // Source position in frames: 1x until frame 6, a quarter frame per output frame
            // until frame 54 (source frame 18), then 1x again.
            let position = k < 6 ? Double(k) : k < 54 ? 6 + Double(k - 6) / 4 : Double(18 + k - 54)
            let below = 16 + 6 * position.rounded(.down)
            let expected = mode == "blend" ? 16 + 6 * position : below
            worst = max(worst, abs(level - expected))
            #expect(abs(level - expected) < 1.5, "frame \(k): level \(level), expected \(expected) (\(mode))")
        }
        print("\(mode): worst level error \(worst)")
    }

    /// A flash and a beep start together every second; the middle second is slowed to
    /// half or quarter speed. In the output every beep still starts within half a video
    /// frame of its flash — with the pitch kept and with varispeed.
    @Test(arguments: [("preserve-pitch", 0.5), ("preserve-pitch", 0.25), ("varispeed", 0.5)])
    func beepsStayOnTheirFlashesThroughASlowSection(mode: String, rate: Double) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeGenerated(
            in: dir.path, name: "flash.mp4", seconds: 5,
            video: "color=black:size=320x240:rate=30:duration=5,format=yuv420p,geq=lum='if(eq(mod(N,30),0),235,16)':cb=128:cr=128",
            audio: "aevalsrc=if(lt(mod(t\\,1)\\,0.1)\\,0.8*sin(2*PI*1000*t)\\,0):s=48000:d=5", lossless: true)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        output: { fps: 30 }
        clips:
          - speed: [{ range: [1.5, 2.5], rate: \(rate) }]
            audio: \(mode)
        """)
        let output = dir.file("slow.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")

        // A flash starts at a bright frame after a dark one (slowed, it shows twice).
        let bright = try DecodedMedia.lumaFrames(of: output, width: 320, height: 240).map {
            Self.mean($0, x: 100..<220, y: 80..<160, width: 320) > 128
        }
        let flashes = bright.indices.filter { bright[$0] && ($0 == 0 || !bright[$0 - 1]) }.map { Double($0) / 30 }
        let samples = try DecodedMedia.monoSamples(of: output)
        var beeps: [Double] = [], quietSince = -48_000
        for (i, sample) in samples.enumerated() where abs(sample) > 0.2 {
            if i - quietSince > 14_400 { beeps.append(Double(i) / 48_000) }   // after 0.3 s of quiet
            quietSince = i
        }
        // Source flashes at 0 1 2 3 4 s; 2 s lies in the slowed second [1.5, 2.5], which
        // lasts 1/rate seconds.
        let expected = [0, 1, 1.5 + 0.5 / rate, 1.5 + 1 / rate + 0.5, 1.5 + 1 / rate + 1.5]
        #expect(flashes.count == expected.count && zip(flashes, expected).allSatisfy { abs($0 - $1) < 0.001 }, "flashes at \(flashes)")
        #expect(beeps.count == flashes.count, "beeps at \(beeps), flashes at \(flashes)")
        for (beep, flash) in zip(beeps, flashes) {
            #expect(abs(beep - flash) <= 0.5 / 30, "\(mode) \(rate): beep at \(beep) s, flash at \(flash) s")
        }
        print("\(mode) \(rate): beep - flash offsets (ms) \(zip(beeps, flashes).map { (($0 - $1) * 1000).rounded() })")
    }

    private static func makeVideo(_ dir: TemporaryDirectory, _ name: String, fps: Int, seconds: Int, luma: String) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: name, seconds: Double(seconds),
                                   video: "color=black:size=320x240:rate=\(fps):duration=\(seconds),format=yuv420p,geq=lum='\(luma)':cb=128:cr=128",
                                   lossless: true)
    }

    private static func mean(_ plane: [UInt8], x: Range<Int>, y: Range<Int>, width: Int) -> Double {
        var sum = 0
        for row in y { for column in x { sum += Int(plane[row * width + column]) } }
        return Double(sum) / Double(x.count * y.count)
    }
}
