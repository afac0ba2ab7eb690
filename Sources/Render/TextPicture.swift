import MediaIO
import Timeline

/// Turns a text coverage mask into a premultiplied RGBA picture in the text's colour,
/// with its outline (the mask grown by the outline width) and drop shadow (the outlined
/// mask moved down and right) drawn beneath, so the words read on any background.
enum TextPicture {
    static func render(_ mask: TextRasterizer.Mask, color: Color, effects: OverlayLayer.TextEffects) throws -> VideoFrame {
        let grow = Int(effects.outlineWidth.rounded(.up)), shift = Int(effects.shadowOffset.rounded())
        let width = mask.width + 2 * grow + max(0, shift), height = mask.height + 2 * grow + max(0, shift)
        // The mask placed in the padded frame, and its grown copy.
        var text = [Float](repeating: 0, count: width * height)
        for y in 0..<mask.height {
            for x in 0..<mask.width { text[(y + grow) * width + x + grow] = Float(mask.coverage[y * mask.width + x]) / 255 }
        }
        let outline = grow > 0 ? dilate(text, width: width, height: height, radius: effects.outlineWidth) : text
        var picture = [Float](repeating: 0, count: width * height * 4)   // premultiplied RGBA, 0...1
        func over(_ coverage: [Float], _ color: Color, dx: Int, dy: Int) {
            let a = Float(min(1, max(0, color.alpha)))
            let rgb = [color.red, color.green, color.blue].map { Float(min(1, max(0, $0))) }
            for y in 0..<height {
                for x in 0..<width {
                    let sx = x - dx, sy = y - dy
                    guard sx >= 0, sy >= 0, sx < width, sy < height else { continue }
                    let alpha = coverage[sy * width + sx] * a
                    guard alpha > 0 else { continue }
                    let i = (y * width + x) * 4
                    for c in 0..<3 { picture[i + c] = rgb[c] * alpha + picture[i + c] * (1 - alpha) }
                    picture[i + 3] = alpha + picture[i + 3] * (1 - alpha)
                }
            }
        }
        if shift > 0 { over(outline, effects.shadowColor, dx: shift, dy: shift) }
        if grow > 0 { over(outline, effects.outlineColor, dx: 0, dy: 0) }
        over(text, color, dx: 0, dy: 0)
        let frame = try VideoFrame(width: width, height: height, pixelFormat: .rgba)
        frame.withPlane(0) { bytes, stride in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<4 { bytes[y * stride + x * 4 + c] = UInt8((picture[(y * width + x) * 4 + c] * 255).rounded()) }
                }
            }
        }
        return frame
    }

    /// Each pixel takes the largest coverage within `radius` (a round pen), with the
    /// fractional part of the radius as a soft edge.
    static func dilate(_ coverage: [Float], width: Int, height: Int, radius: Double) -> [Float] {
        let reach = Int(radius.rounded(.up))
        var out = coverage
        for y in 0..<height {
            for x in 0..<width {
                var best = coverage[y * width + x]
                for dy in -reach...reach {
                    let sy = y + dy
                    guard sy >= 0, sy < height else { continue }
                    for dx in -reach...reach {
                        let sx = x + dx
                        guard sx >= 0, sx < width else { continue }
                        let distance = (Double(dx * dx + dy * dy)).squareRoot()
                        let weight = Float(min(1, max(0, radius + 0.5 - distance)))
                        best = max(best, coverage[sy * width + sx] * weight)
                    }
                }
                out[y * width + x] = best
            }
        }
        return out
    }
}
