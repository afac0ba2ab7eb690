import Foundation
import DropcutMediaIO
import Testing
import DropcutTimeline
@testable import DropcutRender

/// Still pictures' copies (`StillCopies`): made once, not per frame, and drawing what the
/// per-frame path draws — bit for bit for a still that does not zoom, within a resampling
/// difference for one that does.
@Suite struct StillCopiesTests {
    typealias AffineTransform = DropcutTimeline.AffineTransform

    /// A `size` frame of a smooth pattern (a photo-like picture: no detail finer than a
    /// few pixels, so two correct resamplings of it agree closely).
    static func picture(_ size: PixelSize) throws -> VideoFrame {
        let frame = try VideoFrame(width: size.width, height: size.height)
        frame.setColorTags(ColorDescription.bt709)
        for plane in 0..<3 {
            let scale = plane == 0 ? 1.0 : 2.0
            frame.withPlane(plane) { buffer, stride in
                for y in 0..<frame.planeHeight(plane) {
                    for x in 0..<frame.planeWidth(plane) {
                        let u = Double(x) * scale / 37, v = Double(y) * scale / 53
                        let wave: Double = 60 * sin(u) * cos(v)
                        let slow: Double = 40 * sin((u + v) / 3)
                        let value = 128 + wave + slow + Double(plane) * 5
                        buffer[y * stride + x] = UInt8(max(16, min(235, value.rounded())))
                    }
                }
            }
        }
        return frame
    }

    /// PSNR of `a`'s planes against `b`'s, all samples pooled (`.infinity` when equal).
    static func psnr(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        var squared = 0.0, count = 0
        for plane in 0..<3 {
            a.withPlane(plane) { pa, sa in
                b.withPlane(plane) { pb, sb in
                    for y in 0..<a.planeHeight(plane) {
                        for x in 0..<a.planeWidth(plane) {
                            let d = Double(pa[y * sa + x]) - Double(pb[y * sb + x])
                            squared += d * d
                            count += 1
                        }
                    }
                }
            }
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / Double(count)))
    }

    /// Renders `frames` output frames of `picture` under `transform(i)`, once as a still
    /// (copies kept) and once as a movie's frame (everything per frame); returns the
    /// lowest PSNR between the two and how many copies the still's compositor made.
    static func compare(_ picture: VideoFrame, canvas size: PixelSize, frames: Int, resampled: Bool,
                        transform: (Int) -> AffineTransform) throws -> (worst: Double, made: Int) {
        let still = VideoCompositor(renderSize: size), movie = VideoCompositor(renderSize: size)
        let a = try VideoFrame(width: size.width, height: size.height), b = try VideoFrame(width: size.width, height: size.height)
        let source = SourceTrack(asset: "photo", trackID: 1, mediaType: .video, duration: MediaTime(value: 1, timescale: 1))
        var worst = Double.infinity
        for i in 0..<frames {
            var layer = FramePlan.Layer(trackID: 1, source: source, sourceTime: .zero, opacity: 1, transform: transform(i),
                                        crop: .infinite, frameSampling: .repeat)
            layer.resampled = resampled
            let plan = FramePlan(index: i, time: .zero, background: .black, layers: [layer])
            try still.composite(plan, frames: [LayerPicture(picture, still: StillIdentity(serial: 0, background: .black))], into: a)
            try movie.composite(plan, frames: [LayerPicture(picture)], into: b)
            worst = min(worst, psnr(a, b))
        }
        return (worst, still.stillCopiesMade)
    }

    @Test func aCopyServesWhatItWasMadeForAndUpToTwiceLess() throws {
        let copies = StillCopies()
        let whole = PixelSize(width: 4000, height: 3000)
        let key = StillCopies.Key(still: StillIdentity(serial: 1, background: .black), crop: PixelRect(x: 0, y: 0, width: 3000, height: 4000),
                                  orientation: .rotate90)
        let first = copies.sizeToMake(key, needed: PixelSize(width: 900, height: 700), whole: whole)
        #expect(first == PixelSize(width: 900, height: 700), "the first copy is exactly what is needed")
        #expect(StillCopies.serves(first, needed: PixelSize(width: 900, height: 700), whole: whole))
        #expect(StillCopies.serves(first, needed: PixelSize(width: 450, height: 350), whole: whole))
        #expect(!StillCopies.serves(first, needed: PixelSize(width: 449, height: 350), whole: whole), "more than twice: the warp would skip pixels")
        #expect(!StillCopies.serves(first, needed: PixelSize(width: 901, height: 700), whole: whole), "smaller than needed: detail lost")
        // More than the whole picture is needed (an enlargement): the whole picture serves.
        #expect(StillCopies.serves(whole, needed: PixelSize(width: 5000, height: 3500), whole: whole))
        copies.insert(try VideoFrame(width: 900, height: 700), for: key)
        let next = copies.sizeToMake(key, needed: PixelSize(width: 1000, height: 800), whole: whole)
        #expect(next == PixelSize(width: 1400, height: 1120), "a zoom's next copy has headroom")
        #expect(copies.sizeToMake(key, needed: PixelSize(width: 3500, height: 2800), whole: whole) == whole, "never more than the picture")
    }

    /// A large still fitted on the canvas, turned a quarter (a photo's EXIF orientation):
    /// one copy for every frame, and the frames are byte for byte the per-frame path's.
    @Test func aStillThatDoesNotZoomIsTurnedAndScaledOnceExactlyAsEveryFrame() throws {
        let picture = try Self.picture(PixelSize(width: 1200, height: 900))
        let canvas = PixelSize(width: 240, height: 320)
        let turn = AffineTransform.orientation(quarterTurns: 1, naturalSize: PixelSize(width: 1200, height: 900))
            .concatenating(AffineTransform(scaleX: 0.2, y: 0.2)).concatenating(AffineTransform(translationX: 30, y: 40))
        let result = try Self.compare(picture, canvas: canvas, frames: 10, resampled: false) { _ in turn }
        #expect(result.made == 1, "\(result.made) copies for 10 frames")
        #expect(result.worst == .infinity, "differs from the per-frame path: \(result.worst) dB")
    }

    /// A Ken Burns on a large turned still (zoom 0.2 → 0.3, turning 0° → 6°, by the warp):
    /// a few copies for 60 frames, each frame within 40 dB of shrinking the whole picture
    /// for that frame alone.
    @Test func aZoomingStillMakesAFewCopiesAndDrawsWhatEachFrameWould() throws {
        let size = PixelSize(width: 1600, height: 1200)
        let picture = try Self.picture(size)
        let canvas = PixelSize(width: 320, height: 240)
        let result = try Self.compare(picture, canvas: canvas, frames: 60, resampled: true) { i in
            let t = Double(i) / 59, s = 0.2 + 0.1 * t, angle = 6 * t * .pi / 180
            return AffineTransform(translationX: -800, y: -600)
                .concatenating(AffineTransform(a: s * cos(angle), b: s * sin(angle), c: -s * sin(angle), d: s * cos(angle), tx: 0, ty: 0))
                .concatenating(AffineTransform(translationX: 160, y: 120))
        }
        print("Ken Burns on a 1600x1200 still, 60 frames: \(result.made) copies; worst frame against the per-frame path \(result.worst) dB")
        #expect(result.made <= 3, "\(result.made) copies for 60 frames")
        #expect(result.worst >= 40, "\(result.worst) dB")
    }
}

