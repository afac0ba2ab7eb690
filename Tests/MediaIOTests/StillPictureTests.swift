import Foundation
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline

/// Pictures as clips: told from movies by their content (not their names), probed as one
/// held picture, decoded once into the compositor's format, alpha over the background.
@Suite struct StillPictureTests {
    static func makeImage(_ dir: TemporaryDirectory, _ name: String, source: String, format: String, codec: [String] = []) throws -> String {
        let path = dir.file(name)
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                                          "-frames:v", "1", "-pix_fmt", format] + codec + [path])
        return path
    }

    /// The first luma sample of `frame`.
    static func luma(_ frame: VideoFrame) -> Int {
        frame.withPlane(0) { bytes, _ in Int(bytes[0]) }
    }

    @Test func picturesAreToldByContentWhateverTheirName() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // A PNG named like a movie, and a JPEG named like a PNG (the demuxer must not go by
        // the name: image2 would claim the .png as a PNG and fail on it).
        let png = try Self.makeImage(dir, "photo.mp4", source: "testsrc=size=320x240", format: "rgb24", codec: ["-c:v", "png", "-f", "image2"])
        let jpeg = try Self.makeImage(dir, "photo.png", source: "testsrc=size=160x120", format: "yuvj420p", codec: ["-c:v", "mjpeg", "-f", "image2"])
        let movie = try Fixtures.makeClip(in: dir.path, name: "clip.png.mp4", seconds: 1)
        #expect(StillPicture.isPicture(png) && StillPicture.isPicture(jpeg))
        #expect(!StillPicture.isPicture(movie))

        let probed = try AssetProbe().probe(png)
        let video = try #require(probed.video)
        #expect(video.isStillImage && video.naturalSize == PixelSize(width: 320, height: 240))
        #expect(video.timeRange == TimeRange(start: .zero, duration: .zero) && probed.audio == nil)
        let photo = try #require(try AssetProbe().probe(jpeg).video)
        #expect(photo.isStillImage && photo.naturalSize == PixelSize(width: 160, height: 120))
        #expect(try AssetProbe().probe(movie).video?.isStillImage == false)
    }

    @Test func aTruncatedPictureFailsNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Noise does not compress: half the file cuts the picture's data in the middle.
        let whole = try Self.makeImage(dir, "whole.png", source: "nullsrc=s=320x240,geq=random(1)*255:128:128", format: "rgb24")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.png")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(StillPicture.isPicture(cut))
        do {
            _ = try AssetProbe().probe(cut)
            Issue.record("a truncated picture probed")
        } catch {
            #expect("\(error)".hasPrefix(cut + ": "), "\(error)")
        }
    }

    /// Issue 28: a JPEG cut short decoded "fine", the missing rows green, and rendered
    /// with exit 0. Cut anywhere in its scan data — near the start, in the middle, just
    /// before the end marker — it fails naming the file and saying why; the whole file
    /// decodes.
    @Test(arguments: [0.1, 0.3, 0.5, 0.8, 0.97])
    func aJPEGCutShortAnywhereFailsNamingTheFile(fraction: Double) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let whole = try Self.makeImage(dir, "whole.jpg", source: "testsrc=size=320x240", format: "yuvj420p", codec: ["-q:v", "3"])
        _ = try StillPicture(path: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.jpg")
        try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: URL(fileURLWithPath: cut))
        do {
            _ = try StillPicture(path: cut)
            Issue.record("a JPEG cut at \(fraction) of its \(bytes.count) bytes decoded")
        } catch {
            #expect("\(error)".hasPrefix(cut + ": "), "\(error)")
            #expect("\(error)".contains("truncated or damaged"), "\(error)")
        }
    }

    /// Issue 28: a 16-bit RGBA PNG bomb — 16384x6102, inside the pixel limits, 8 bytes a
    /// pixel: 800 MB decoded from about 1 MB of file — is refused from its header, naming
    /// the file and the byte limit, before anything decodes it (it took 1.4 GB and 15 s
    /// to probe).
    @Test func aSixteenBitPNGBombIsRefusedBeforeDecoding() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let bomb = try PNGBombFixture.write(in: dir.path)
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int)
        try #require(fileBytes < 4 << 20, "the bomb should compress to a small file, it is \(fileBytes) bytes")
        let start = Date()
        do {
            _ = try AssetProbe().probe(bomb)
            Issue.record("a 800 MB picture was probed")
        } catch {
            let message = "\(error)"
            #expect(message.hasPrefix(bomb + ": "), "\(message)")
            #expect(message.contains("16384x6102 pixels: it takes 799 MB decoded (8 bytes a pixel), more than 400 MB"), "\(message)")
        }
        #expect(Date().timeIntervalSince(start) < 1, "refused from the header, without decoding")
    }

    /// Sizes FFmpeg will not state were reported as "no size (truncated or damaged)": the
    /// refusal now says which limit the header breaks, or that the width is zero.
    @Test(arguments: [(16384, 16384, "it is 268.4 megapixels, more than 100"),
                      (65000, 65000, "it is 65000 pixels wide, more than 16384"),
                      (0, 240, "its width is zero")])
    func anOversizedHeaderSaysWhichLimitItBreaks(width: Int, height: Int, problem: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // A valid PNG whose header states the size: the compressed rows need not follow,
        // as nothing may decode them.
        let path = dir.file("big.png")
        try Self.pngHeader(width: UInt32(width), height: UInt32(height)).write(to: URL(fileURLWithPath: path))
        do {
            _ = try AssetProbe().probe(path)
            Issue.record("\(width)x\(height) probed")
        } catch {
            #expect("\(error)".hasPrefix(path + ": "), "\(error)")
            #expect("\(error)".contains("the picture is \(width)x\(height) pixels: \(problem)"), "\(error)")
        }
    }

    /// The PNG signature and an IHDR chunk (8-bit RGB) with its CRC.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var chunk = Data("IHDR".utf8)
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { chunk.append(contentsOf: $0) } }
        chunk.append(contentsOf: [8, 2, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        withUnsafeBytes(of: UInt32(13).bigEndian) { data.append(contentsOf: $0) }
        data.append(chunk)
        withUnsafeBytes(of: crc32(chunk).bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// One frame for the whole span: every call hands back the same picture, converted
    /// once to 8-bit video-range 4:2:0.
    @Test func thePictureIsDecodedAndConvertedOnce() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.makeImage(dir, "photo.jpg", source: "testsrc=size=320x240", format: "yuvj420p")
        let picture = try StillPicture(path: path)
        let first = try picture.frame(over: .black)
        #expect(first.pixelFormat == .yuv420p && !first.isFullRange && first.usesBT709)
        #expect(first.size == PixelSize(width: 320, height: 240) && !picture.hasAlpha)
        for _ in 0..<10 { #expect(try picture.frame(over: .black) === first) }
        // An opaque picture is the same whatever the background.
        #expect(try picture.frame(over: .white) === first)
    }

    /// Half-transparent orange: over black it is dark, over white light — composited
    /// again (in the same frame) only when the background changes.
    @Test func alphaIsCompositedOverTheBackground() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.makeImage(dir, "half.png", source: "color=c=0xff8000@0.5:s=48x32,format=rgba", format: "rgba")
        let picture = try StillPicture(path: path)
        #expect(picture.hasAlpha)
        let overBlack = Self.luma(try picture.frame(over: .black))
        let overWhite = Self.luma(try picture.frame(over: .white))
        // BT.709 video range: (128, 64, 0) is Y 79, (255, 191, 127) is Y 188.
        #expect(abs(overBlack - 79) <= 2 && abs(overWhite - 188) <= 2, "over black \(overBlack), over white \(overWhite)")
    }
}
