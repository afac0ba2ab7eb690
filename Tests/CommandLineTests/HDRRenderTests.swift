import Foundation
import Testing
import TestSupport

/// HLG and PQ clips rendered by `dropcut render` into SDR, end to end: patterns made by
/// the `ffmpeg` CLI from known values (`zscale` for SDR greys placed in HLG — SDR white at
/// HLG 75 % with npl=203, as BT.2408 places it — and raw 10-bit codes for the highlights),
/// the outputs read back with `ffmpeg` and `ffprobe`.
@Suite(.tags(.slow)) struct HDRRenderTests {
    static func ffmpeg(_ args: [String]) async throws {
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + args)
    }

    static let hlgTags = ["-color_trc", "arib-std-b67", "-color_primaries", "bt2020", "-colorspace", "bt2020nc", "-color_range", "tv"]
    static let pqTags = ["-color_trc", "smpte2084", "-color_primaries", "bt2020", "-colorspace", "bt2020nc", "-color_range", "tv"]

    /// A 1 s 320x240 HLG clip: eight 40-pixel bars, SDR white, 18 % grey... made by zscale.
    static func hlgGreys(_ path: String) async throws {
        let bars = ["white", "0x767676", "0x303030", "white", "0x767676", "0x303030", "white", "black"]
        let boxes = bars.enumerated().map { "drawbox=x=\($0.offset * 40):y=0:w=40:h=240:c=\($0.element):t=fill" }
        try await ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=320x240:d=1:r=30,format=yuv420p," + boxes.joined(separator: ","),
                    "-vf", "zscale=t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:tin=bt709:pin=bt709:min=bt709:rin=tv:npl=203,format=yuv420p10le",
                    "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1"] + hlgTags + ["-tag:v", "hvc1", path])
    }

    /// A 1 s 320x240 clip of eight neutral bars whose 10-bit Y codes are `codes`, raw.
    static func neutralBars(_ path: String, codes: [UInt16], tags: [String], x265: String = "") async throws {
        var frame = Data()
        func append(_ value: UInt16, count: Int) {
            for _ in 0..<count { frame.append(UInt8(value & 0xff)); frame.append(UInt8(value >> 8)) }
        }
        for _ in 0..<240 { for code in codes { append(code, count: 40) } }
        append(512, count: 2 * 160 * 120)
        let raw = path + ".yuv"
        var all = Data()
        for _ in 0..<30 { all.append(frame) }
        try all.write(to: URL(fileURLWithPath: raw))
        try await ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "320x240", "-r", "30", "-i", raw,
                    "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1" + x265] + tags + ["-tag:v", "hvc1", path])
    }

    /// Mean Y of each 40-pixel bar (inner 24 columns) of frame 15.
    static func barLuma(_ path: String) throws -> [Double] {
        let picture = try DecodedMedia.yuvFrame(of: path, index: 15, width: 320, height: 240)
        return (0..<8).map { bar in
            var sum = 0.0
            for y in 40..<200 { for x in (bar * 40 + 8)..<(bar * 40 + 32) { sum += Double(picture.y[y * 320 + x]) } }
            return sum / Double(160 * 24)
        }
    }

    static func render(_ clip: String, to output: String, recipe: String? = nil) async throws {
        let result = try await DropcutProcess.run(["render"] + (recipe.map { ["--recipe", $0] } ?? []) + ["--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// ffprobe's colour tags and side data of the first video stream.
    static func colourReport(_ path: String) async throws -> String {
        try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                           "stream=color_transfer,color_primaries,color_space:stream_side_data",
                                           "-show_frames", "-read_intervals", "%+#1", "-show_entries", "frame=side_data_list",
                                           "-of", "default", path])
    }

    /// An HLG clip in 4:2:2 (ProRes-style camera files) is repacked to 4:2:0 before the
    /// table with its BT.2020 matrix kept: it comes out as the same clip in 4:2:0 does, up
    /// to the chroma resampling (44 dB; a repack that converted the matrix to BT.709 first
    /// measured 38 dB here).
    @Test func hlg422ComesOutAsHLG420Does() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg420.mp4"), wide = dir.file("hlg422.mp4")
        try await Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1:r=30",
                         "-vf", "zscale=t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:tin=bt709:pin=bt709:min=bt709:rin=tv:npl=203,format=yuv420p10le",
                         "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1"] + Self.hlgTags + ["-tag:v", "hvc1", clip])
        try await Self.ffmpeg(["-i", clip, "-vf", "format=yuv422p10le", "-c:v", "libx265", "-x265-params", "log-level=error:lossless=1"]
                        + Self.hlgTags + ["-tag:v", "hvc1", wide])
        let out420 = dir.file("out420.mp4"), out422 = dir.file("out422.mp4")
        try await Self.render(clip, to: out420)
        try await Self.render(wide, to: out422)
        let similarity = try PSNR.compare(out420, out422)
        print("HLG 4:2:2 vs 4:2:0 tone mapped: \(similarity)")
        #expect(similarity.average >= 42, "\(similarity)")
    }

    @Test func hlgGreysComeOutAtTheirSDRLevels() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4"), sdr = dir.file("sdr.mp4"), output = dir.file("out.mp4")
        try await Self.hlgGreys(clip)
        try await Self.render(clip, to: output)
        // The SDR originals, for comparison.
        let bars = ["white", "0x767676", "0x303030", "white", "0x767676", "0x303030", "white", "black"]
        try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=320x240:d=1:r=30,format=yuv420p,"
                         + bars.enumerated().map { "drawbox=x=\($0.offset * 40):y=0:w=40:h=240:c=\($0.element):t=fill" }.joined(separator: ","),
                         "-c:v", "libx264", "-qp", "0", sdr])
        let got = try Self.barLuma(output), want = try Self.barLuma(sdr)
        print("HLG greys → SDR luma \(got), SDR originals \(want)")
        for (g, w) in zip(got, want) {
            // Reference white within 2 % of SDR white (219 codes), the rest within 2 codes.
            #expect(abs(g - w) <= (w > 200 ? 4.4 : 2), "bar at \(g), SDR original \(w)")
        }
    }

    @Test(arguments: ["hlg", "pq"])
    func highlightsRollOffWithoutClipping(transfer: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("\(transfer).mp4"), output = dir.file("out.mp4")
        // HLG 75 % (reference white) ... 100 %; PQ 203 ... 1000 cd/m² (58 % ... 75 %),
        // the PQ clip carrying HDR10 mastering and content-light metadata.
        let codes: [UInt16] = transfer == "hlg" ? [721, 752, 784, 815, 846, 878, 909, 940] : [572, 597, 622, 647, 672, 697, 722, 800]
        if transfer == "hlg" {
            try await Self.neutralBars(clip, codes: codes, tags: Self.hlgTags)
        } else {
            try await Self.neutralBars(clip, codes: codes, tags: Self.pqTags,
                                 x265: ":hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400")
            #expect(try await Self.colourReport(clip).contains("Mastering display metadata"), "the PQ fixture carries no HDR metadata")
        }
        try await Self.render(clip, to: output)
        let luma = try Self.barLuma(output)
        print("\(transfer) highlights → SDR luma \(luma)")
        #expect(luma[0] >= 235 - 4.4, "reference white at \(luma[0])")
        // Up to the source's peak (HLG 100 %, PQ's stated 1000 cd/m²) every step is
        // brighter, and only the peak reaches the top (109 %, code 254).
        let peak = transfer == "hlg" ? 7 : 6
        for i in 1...peak { #expect(luma[i] > luma[i - 1], "bar \(i) at \(luma[i]) not above \(luma[i - 1])") }
        #expect(luma[peak - 1] < 254, "highlights clipped at \(luma[peak - 1])")
        // SDR output, tagged BT.709, with no HDR side data.
        let report = try await Self.colourReport(output)
        #expect(report.contains("color_transfer=bt709") && report.contains("color_primaries=bt709") && report.contains("color_space=bt709"), "\(report)")
        for hdr in ["Mastering display", "Content light", "DOVI", "Dolby Vision"] {
            #expect(!report.contains(hdr), "output carries \(hdr): \(report)")
        }
    }

    @Test func whiteOverlayOnHLGStaysWhite() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("hlg.mp4"), output = dir.file("out.mp4")
        try await Self.hlgGreys(clip)
        try await Self.ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=80x60,format=rgba", "-frames:v", "1", dir.file("logo.png")])
        let recipe = try Fixtures.makeFile(in: dir.path, name: "logo.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { image: logo.png, anchor: center, margin: 0 }
        """)
        try await Self.render(clip, to: output, recipe: recipe)
        let pixel = dir.file("pixel.rgb")
        try await Self.ffmpeg(["-i", output, "-frames:v", "1", "-vf", "crop=40:30:140:105,scale=1:1:flags=area,format=rgb24",
                         "-f", "rawvideo", pixel])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: pixel)))
        print("white overlay on HLG → RGB \(bytes)")
        #expect(bytes.count == 3 && bytes.allSatisfy { $0 >= 250 }, "overlay came out \(bytes)")
    }
}
