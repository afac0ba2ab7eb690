import Foundation
import Testing
import TestSupport

/// `output.dynamic_range: hdr | source` end to end with `dropcut render`: HEVC Main 10 HLG
/// outputs, their tags (VUI, `colr`, the alternative transfer characteristics SEI) and
/// their pixels, read back with `ffprobe`/`ffmpeg` — HLG sources kept, SDR sources and
/// overlays mapped up with their white at HLG 75 %, PQ converted by display light.
@Suite(.tags(.slow)) struct HDROutputTests {
    static let ffmpeg = HDRRenderTests.ffmpeg
    static let render = HDRRenderTests.render

    /// HLG 75 %, BT.2408's reference white, as a 10-bit video-range code: 64 + 0.75 · 876.
    static let referenceWhite = 721.0

    static func recipe(_ dir: TemporaryDirectory, _ body: String, name: String = "hdr.yaml") throws -> String {
        try Fixtures.makeFile(in: dir.path, name: name, contents: "version: 1\n" + body)
    }

    /// A 1 s 320x240 HLG clip (testsrc2 placed in HLG by zscale; lossless).
    static func hlgClip(_ path: String) async throws {
        try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1:r=30,format=yuv420p",
                    "-vf", "zscale=t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:tin=bt709:pin=bt709:min=bt709:rin=tv:npl=203,format=yuv420p10le",
                    "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1"] + HDRRenderTests.hlgTags + ["-tag:v", "hvc1", path])
    }

    /// A 1 s 320x240 BT.709 SDR clip of eight 40-pixel bars with the given 8-bit video-range
    /// Y'CbCr codes, raw, so every value is known (lossless H.264).
    static func sdrBars(_ path: String, codes: [(Int, Int, Int)]) async throws {
        var frame = Data()
        for _ in 0..<240 { for code in codes { frame.append(contentsOf: [UInt8](repeating: UInt8(code.0), count: 40)) } }
        for plane in [1, 2] {
            for _ in 0..<120 {
                for code in codes { frame.append(contentsOf: [UInt8](repeating: UInt8(plane == 1 ? code.1 : code.2), count: 20)) }
            }
        }
        let raw = path + ".yuv"
        var all = Data()
        for _ in 0..<30 { all.append(frame) }
        try all.write(to: URL(fileURLWithPath: raw))
        try await ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x240", "-r", "30", "-i", raw,
                    "-c:v", "libx264", "-qp", "0", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
                    "-color_range", "tv", path])
    }

    /// 8-bit BT.709 video-range codes of SDR R'G'B'.
    static func bt709Codes(_ rgb: (Double, Double, Double)) -> (Int, Int, Int) {
        let y = 0.2126 * rgb.0 + 0.7152 * rgb.1 + 0.0722 * rgb.2
        return (Int((16 + 219 * y).rounded()), Int((128 + 224 * (rgb.2 - y) / 1.8556).rounded()),
                Int((128 + 224 * (rgb.0 - y) / 1.5748).rounded()))
    }

    /// The 10-bit HLG codes BT.2408 puts an SDR colour at (given as its 8-bit codes), by the
    /// tests' own BT.2100 encoder.
    static func expectedHLG(_ codes: (Int, Int, Int)) -> (y: Double, cb: Double, cr: Double) {
        let light = HDRPatterns.linearBT709(sdrYCbCr: (Double(codes.0 - 16) / 219, Double(codes.1 - 128) / 224, Double(codes.2 - 128) / 224))
        let hlg = HDRPatterns.encode(displayBT2020: HDRPatterns.bt709ToBT2020(light), as: .hlg)
        return (64 + 876 * hlg.y, 512 + 896 * hlg.cb, 512 + 896 * hlg.cr)
    }

    /// Mean codes of each 40-pixel bar (inner columns) of frame 15 of a 10-bit output.
    static func bars(_ path: String) throws -> [(y: Double, cb: Double, cr: Double)] {
        let picture = try DecodedMedia.yuv10Frame(of: path, index: 15, width: 320, height: 240)
        return (0..<8).map { bar in
            var y = 0.0, cb = 0.0, cr = 0.0
            for row in 40..<200 { for x in (bar * 40 + 8)..<(bar * 40 + 32) { y += Double(picture.y[row * 320 + x]) } }
            for row in 20..<100 {
                for x in (bar * 20 + 4)..<(bar * 20 + 16) {
                    cb += Double(picture.u[row * 160 + x])
                    cr += Double(picture.v[row * 160 + x])
                }
            }
            return (y / Double(160 * 24), cb / Double(80 * 12), cr / Double(80 * 12))
        }
    }

    struct StreamTags: Decodable {
        let codec_name: String?, profile: String?, pix_fmt: String?
        let color_space: String?, color_transfer: String?, color_primaries: String?, color_range: String?
    }

    static func videoTags(_ path: String) async throws -> StreamTags {
        struct Report: Decodable { let streams: [StreamTags] }
        let json = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-of", "json", "-show_entries",
                                                      "stream=codec_name,profile,pix_fmt,color_space,color_transfer,color_primaries,color_range",
                                                      path])
        return try #require(try JSONDecoder().decode(Report.self, from: Data(json.utf8)).streams.first)
    }

    /// The MP4 `colr` box's `nclx` values: primaries, transfer, matrix, full range.
    static func colr(_ path: String) throws -> (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)? {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array("colrnclx".utf8)
        guard bytes.count > tag.count + 7,
              let at = (0...(bytes.count - tag.count - 7)).first(where: { Array(bytes[$0..<$0 + tag.count]) == tag }) else { return nil }
        let p = at + tag.count
        func u16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        return (u16(p), u16(p + 2), u16(p + 4), bytes[p + 6] & 0x80 != 0)
    }

    /// The HEVC bitstream's parameter sets and SEI as `trace_headers` prints them.
    static func traceHeaders(_ path: String) async throws -> String {
        let result = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:v:0", "-c", "copy",
                                                "-bsf:v", "trace_headers", "-f", "null", "-"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stderr
    }

    static func expectHLGStream(_ path: String) async throws {
        let tags = try await Self.videoTags(path)
        #expect(tags.codec_name == "hevc" && tags.profile == "Main 10" && tags.pix_fmt == "yuv420p10le", "\(tags)")
        #expect(tags.color_space == "bt2020nc" && tags.color_primaries == "bt2020" && tags.color_transfer == "arib-std-b67"
                && tags.color_range == "tv", "\(tags)")
    }

    // MARK: HLG kept

    @Test func hlgSourceIsKeptAsHLG() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4"), output = dir.file("out.mp4")
        try await Self.hlgClip(clip)
        try await Self.render(clip, output, try Self.recipe(dir, "output: { dynamic_range: hdr }\n"))

        try await Self.expectHLGStream(output)
        // The container says the same (colr nclx: BT.2020, HLG = 18, BT.2020 NCL, video range).
        let colr = try #require(try Self.colr(output), "no colr nclx box")
        #expect(colr.primaries == 9 && colr.transfer == 18 && colr.matrix == 9 && !colr.fullRange, "colr \(colr)")
        // VUI transfer 18 and the alternative transfer characteristics SEI (payload type
        // 147) preferring HLG (18).
        let trace = try await Self.traceHeaders(output)
        #expect(trace.range(of: #"\]\s+\d+\s+transfer_characteristics\s+[01]+ = 18"#, options: .regularExpression) != nil, "VUI transfer is not HLG")
        #expect(trace.range(of: #"last_payload_type_byte\s+\d+ = 147"#, options: .regularExpression) != nil, "no SEI payload 147")
        #expect(trace.range(of: #"preferred_transfer_characteristics\s+\d+ = 18"#, options: .regularExpression) != nil)
        // No HDR10 / Dolby Vision metadata (HLG needs none).
        let report = try await HDRRenderTests.colourReport(output)
        for hdr in ["Mastering display", "Content light", "DOVI", "Dolby Vision"] {
            #expect(!report.contains(hdr), "output carries \(hdr): \(report)")
        }
        // dropcut's own probe reads it as HLG.
        let probe = try await DropcutProcess.run(["probe", output])
        #expect(probe.status == 0 && probe.stdout.contains("HLG (primaries bt2020, transfer hlg, matrix bt2020, video range)"), "\(probe.stdout)")
        // The pixels are the source's, through one more HEVC encode (compared in 10 bits).
        let psnr = try PSNR.compare(output, clip, filterA: "format=yuv420p10le", filterB: "format=yuv420p10le")
        print("HLG kept: PSNR \(psnr)")
        #expect(psnr.average >= 40 && psnr.min >= 38, "\(psnr)")
    }

    /// Orientation moves and scaling on the 10-bit canvas: a quarter turn (exact pixel
    /// move) scaled down, against ffmpeg's transpose + scale of the source.
    @Test func hlgSourceTurnedAndScaledKeepsItsPixels() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4"), output = dir.file("out.mp4")
        try await Self.hlgClip(clip)
        try await Self.render(clip, output, try Self.recipe(dir, "output: { dynamic_range: hdr, size: 120x160 }\norientation: 90\n"))
        try await Self.expectHLGStream(output)
        let psnr = try PSNR.compare(output, clip, filterA: "format=yuv420p10le",
                                    filterB: "format=yuv420p10le,transpose=clock,scale=120:160:flags=bicubic,format=yuv420p10le")
        print("HLG turned and scaled: PSNR \(psnr)")
        #expect(psnr.average >= 35, "\(psnr)")
    }

    // MARK: SDR mapped up

    /// SDR bars of known codes, as 8-bit 4:2:0 video range (read by the table directly) and
    /// as full-range 4:2:2 (repacked by swscale first).
    @Test(arguments: ["yuv420p", "yuvj422p"])
    func sdrSourceIsMappedUpWithWhiteAtReferenceWhite(layout: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let original = dir.file("sdr.mp4")
        var clip = original
        let output = dir.file("out.mp4"), oracle = dir.file("zscale.mp4")
        // White, mid grey (signal 0.5), 18 % grey, black, then saturated colours and skin.
        let colours: [(Double, Double, Double)] = [(1, 1, 1), (0.5, 0.5, 0.5), (0.49, 0.49, 0.49), (0, 0, 0),
                                                   (0.9, 0.4, 0.1), (0.1, 0.8, 0.2), (0.15, 0.25, 0.9), HDRPatterns.skinTones[0]]
        let codes = colours.map(Self.bt709Codes)
        try await Self.sdrBars(clip, codes: codes)
        if layout != "yuv420p" {
            let repacked = dir.file("sdr-\(layout).mp4")
            try await Self.ffmpeg(["-i", clip, "-vf", "scale=in_range=tv:out_range=pc,format=\(layout)", "-c:v", "libx264", "-qp", "0",
                             "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "pc", repacked])
            clip = repacked
        }
        try await Self.render(clip, output, try Self.recipe(dir, "output: { dynamic_range: hdr, video: { crf: 0 } }\n"))
        try await Self.expectHLGStream(output)
        let got = try Self.bars(output)
        print("SDR bars (\(layout)) → HLG: \(got.map { (Int($0.y.rounded()), Int($0.cb.rounded()), Int($0.cr.rounded())) })")
        // SDR white (235) at HLG 75 % within 1 %, black at black.
        #expect(abs(got[0].y - Self.referenceWhite) <= 0.01 * 876, "white at \(got[0])")
        #expect(abs(got[0].cb - 512) <= 2 && abs(got[0].cr - 512) <= 2)
        #expect(abs(got[3].y - 64) <= 2, "black at \(got[3])")
        // Every bar where BT.2408's display-light mapping puts it (the tests' own encoder).
        for (i, code) in codes.enumerated() {
            let want = Self.expectedHLG(code)
            #expect(abs(got[i].y - want.y) <= 4 && abs(got[i].cb - want.cb) <= 5 && abs(got[i].cr - want.cr) <= 5,
                    "bar \(i) \(code): \(got[i]), BT.2408 \(want)")
        }
        // zscale (display-referred, npl=203) agrees on the greys.
        try await Self.ffmpeg(["-i", original, "-vf", "zscale=t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:tin=bt709:pin=bt709:min=bt709:rin=tv:npl=203,format=yuv420p10le",
                         "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1", oracle])
        let zscale = try Self.bars(oracle)
        print("zscale: \(zscale.map { Int($0.y.rounded()) })")
        for i in 0..<4 { #expect(abs(got[i].y - zscale[i].y) <= 2, "grey bar \(i): \(got[i].y), zscale \(zscale[i].y)") }
    }

    // MARK: Overlays at reference white

    @Test func whiteOverlaysSitAtReferenceWhite() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4"), output = dir.file("out.mp4")
        try await HDRRenderTests.hlgGreys(clip)
        try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=80x60,format=rgba", "-frames:v", "1", dir.file("logo.png")])
        try await Self.render(clip, output, try Self.recipe(dir, """
        output: { dynamic_range: hdr, video: { crf: 4 } }
        overlays:
          - { image: logo.png, anchor: center, margin: 0 }
          - { text: "█", font: DejaVuSans.ttf, size: 60px, color: "#ffffff", anchor: top-left, margin: 0 }
        """))
        try await Self.expectHLGStream(output)
        let picture = try DecodedMedia.yuv10Frame(of: output, index: 15, width: 320, height: 240)
        func mean(_ plane: [UInt16], width: Int, x: Range<Int>, y: Range<Int>) -> Double {
            var sum = 0.0
            for row in y { for column in x { sum += Double(plane[row * width + column]) } }
            return sum / Double(x.count * y.count)
        }
        // The logo's middle (the picture under it spans black to white bars).
        let logo = (mean(picture.y, width: 320, x: 140..<180, y: 105..<135), mean(picture.u, width: 160, x: 72..<88, y: 54..<66),
                    mean(picture.v, width: 160, x: 72..<88, y: 54..<66))
        // The full block glyph's inside, near the top-left corner.
        let text = mean(picture.y, width: 320, x: 10..<25, y: 25..<45)
        print("white logo on HLG output: Y \(logo.0) Cb \(logo.1) Cr \(logo.2); white text Y \(text)")
        #expect(abs(logo.0 - Self.referenceWhite) <= 0.01 * 876, "logo at \(logo)")
        #expect(abs(logo.1 - 512) <= 2 && abs(logo.2 - 512) <= 2, "logo chroma \(logo)")
        #expect(abs(text - Self.referenceWhite) <= 0.01 * 876, "text at \(text)")
    }

    // MARK: source

    @Test func sourceFollowsTheClip() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let hlg = dir.file("hlg.mp4"), sdr = dir.file("sdr.mp4")
        try await Self.hlgClip(hlg)
        _ = try await Fixtures.makeGenerated(in: dir.path, name: "sdr.mp4", seconds: 1, video: "testsrc2=size=320x240:rate=30")
        let recipe = try Self.recipe(dir, "output: { dynamic_range: source }\n")
        try await Self.render(hlg, dir.file("from-hlg.mp4"), recipe)
        try await Self.render(sdr, dir.file("from-sdr.mp4"), recipe)
        try await Self.expectHLGStream(dir.file("from-hlg.mp4"))
        // The untagged SD clip is copied, stating what players take it for (BT.601).
        let tags = try await Self.videoTags(dir.file("from-sdr.mp4"))
        #expect(tags.codec_name == "h264" && tags.pix_fmt == "yuv420p" && tags.color_transfer == "bt709"
                && tags.color_primaries == "smpte170m", "\(tags)")
    }

    /// A recipe asking for HDR in H.264 is refused before anything is rendered, naming the
    /// file and the position.
    @Test func hdrInH264IsRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4")
        try await Self.hlgClip(clip)
        let recipe = try Self.recipe(dir, "output:\n  dynamic_range: hdr\n  video: { codec: h264 }\n")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", dir.file("out.mp4"), clip])
        #expect(result.status == 1 && result.stderr.contains("hdr.yaml:3:18") && result.stderr.contains("hevc"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }

    // MARK: PQ converted

    @Test func pqSourceIsConvertedByDisplayLight() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("pq.mp4"), output = dir.file("out.mp4")
        // Neutral PQ bars: 26 (BT.2408's grey card), 100, 203 (reference white), 400, 600,
        // 1000 (the HLG display's peak), 2000, 4000 cd/m²; with HDR10 metadata, which must
        // not reach the output.
        let nits: [Double] = [26, 100, 203, 400, 600, 1000, 2000, 4000]
        let codes = nits.map { UInt16((64 + 876 * HDRPatterns.pqSignal($0)).rounded()) }
        try await HDRRenderTests.neutralBars(clip, codes: codes, tags: HDRRenderTests.pqTags,
                                       x265: ":hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,1):max-cll=4000,400")
        try await Self.render(clip, output, try Self.recipe(dir, "output: { dynamic_range: hdr, video: { crf: 0 } }\n"))
        try await Self.expectHLGStream(output)
        let luma = try Self.bars(output).map(\.y)
        print("PQ \(nits) cd/m² → HLG Y \(luma.map { Int($0.rounded()) })")
        // 203 cd/m² at HLG 75 % within 2 %; the grey card near HLG 38 %; 1000 cd/m² at 100 %.
        #expect(abs(luma[2] - Self.referenceWhite) <= 0.02 * 876, "203 cd/m² at \(luma[2])")
        #expect(abs(luma[0] - (64 + 0.38 * 876)) <= 0.02 * 876, "26 cd/m² at \(luma[0])")
        #expect(abs(luma[5] - 940) <= 0.02 * 876, "1000 cd/m² at \(luma[5])")
        for i in 1...5 { #expect(luma[i] > luma[i - 1], "bar \(i) at \(luma[i]) not above \(luma[i - 1])") }
        // Above the HLG display's peak: held at HLG 100 %, never past the nominal range.
        for i in 6...7 { #expect(luma[i] <= 942 && luma[i] >= luma[5] - 2, "bar \(i) at \(luma[i])") }
        let report = try await HDRRenderTests.colourReport(output)
        for hdr in ["Mastering display", "Content light", "DOVI", "Dolby Vision"] {
            #expect(!report.contains(hdr), "output carries \(hdr): \(report)")
        }
    }
}
