import Foundation
import MediaIO
import Testing
import TestSupport
import Timeline

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
