import Foundation
import DropcutMediaIO
import Testing
import TestSupport

/// Image files decoded for overlays, made by the ffmpeg CLI in each flavour phones and
/// designers produce.
@Suite struct StillImageTests {
    static func makeImage(_ dir: TemporaryDirectory, _ name: String, source: String, format: String) throws -> String {
        let path = dir.path + "/" + name
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                                          "-frames:v", "1", "-pix_fmt", format, path])
        return path
    }

    /// The largest per-byte difference between `frame` and the ffmpeg CLI's RGBA decode of `path`.
    static func maxDifferenceFromCLI(_ frame: VideoFrame, _ path: String) throws -> Int {
        let raw = dirRaw(path)
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", path,
                                          "-f", "rawvideo", "-pix_fmt", "rgba", raw])
        let oracle = try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw)))
        #expect(oracle.count == frame.size.width * frame.size.height * 4)
        return frame.withPlane(0) { bytes, stride in
            var worst = 0
            for y in 0..<frame.size.height {
                for x in 0..<(frame.size.width * 4) {
                    worst = max(worst, abs(Int(bytes[y * stride + x]) - Int(oracle[y * frame.size.width * 4 + x])))
                }
            }
            return worst
        }
    }

    static func dirRaw(_ path: String) -> String { path + ".rgba" }

    /// The RGBA bytes of pixel (x, y).
    static func rgba(_ frame: VideoFrame, x: Int, y: Int) -> [Int] {
        frame.withPlane(0) { bytes, stride in (0..<4).map { Int(bytes[y * stride + x * 4 + $0]) } }
    }

    @Test(arguments: ["rgba", "rgba64be", "pal8"])
    func pngKeepsColourAndAlpha(format: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Half-transparent orange (#ff8000 at alpha 0x80), 48x32.
        let source = format == "pal8" ? "color=c=0xff8000:s=48x32" : "color=c=0xff8000@0.5:s=48x32,format=rgba"
        let path = try Self.makeImage(dir, "logo-\(format).png", source: source, format: format)
        let image = try StillImage.decode(path)
        #expect(image.size.width == 48 && image.size.height == 32)
        #expect(image.pixelFormat == .rgba)
        // Lossless: the same bytes as the CLI's decode (16-bit rounds to 8 the same way, ±1).
        #expect(try Self.maxDifferenceFromCLI(image, path) <= 1, "\(format)")
        let pixel = Self.rgba(image, x: 20, y: 10)
        #expect(abs(pixel[0] - 255) <= 4 && abs(pixel[1] - 128) <= 20 && pixel[2] <= 1, "\(format): \(pixel)")  // pal8 is dithered
        #expect(abs(pixel[3] - (format == "pal8" ? 255 : 128)) <= 1, "\(format) alpha: \(pixel[3])")
    }

    @Test func jpegIsConvertedFromFullRangeYUV() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.makeImage(dir, "photo.jpg", source: "color=c=0x2080f0:s=64x48", format: "yuvj420p")
        let image = try StillImage.decode(path)
        #expect(try Self.maxDifferenceFromCLI(image, path) <= 3)
        let pixel = Self.rgba(image, x: 30, y: 20)
        // JPEG is lossy and chroma-subsampled: a few levels either way.
        #expect(abs(pixel[0] - 0x20) <= 6 && abs(pixel[1] - 0x80) <= 6 && abs(pixel[2] - 0xf0) <= 6, "\(pixel)")
        #expect(pixel[3] == 255)
    }

    @Test func aTextFileIsAnErrorNamingIt() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try Fixtures.makeFile(in: dir.path, name: "logo.png", contents: "not a picture\n")
        do {
            _ = try StillImage.decode(path)
            Issue.record("a text file decoded as an image")
        } catch {
            #expect(error.path == path)
            #expect(!error.message.isEmpty)
        }
    }

    /// An overlay picture is held against the same limits as a still clip, from its
    /// header, before decoding (issue 28: an overlay is decoded, converted to RGBA and
    /// premultiplied whole, three copies of whatever size the header states).
    @Test func anOversizedOverlayPictureIsRefusedFromItsHeader() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("huge.png")
        try StillPictureTests.pngHeader(width: 20000, height: 100).write(to: URL(fileURLWithPath: path))
        do {
            _ = try StillImage.decode(path)
            Issue.record("a 20000-pixel-wide overlay was decoded")
        } catch {
            #expect(error.path == path)
            #expect("\(error)".contains("it is 20000 pixels wide, more than 16384"), "\(error)")
        }
    }
}
