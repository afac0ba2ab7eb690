import DropcutMediaIO
import DropcutTimeline

/// Turns text coverage masks into a premultiplied RGBA picture in the text's colour,
/// with its outline (the mask grown by the outline width) and drop shadow (the outlined
/// mask moved down and right) drawn beneath, so the words read on any background — and,
/// for captions, a box behind each line, a lit word in its own colour, and colour glyphs
/// (emoji) over it all.
enum TextPicture {
    /// Boxes drawn behind the text (captions' `background`).
    struct Background {
        var color: Color
        /// Space between the text and a box's edge, in pixels.
        var padding: Int
        /// Corner radius in pixels.
        var cornerRadius: Double
        /// The boxes before padding, in mask pixels.
        var boxes: [PixelRect]
    }

    /// How far the picture extends beyond the mask on the left and top (the outline and
    /// the box's padding); the right and bottom add the shadow.
    static func margin(effects: OverlayLayer.TextEffects, background: Background?) -> Int {
        max(Int(effects.outlineWidth.rounded(.up)), background?.padding ?? 0)
    }

    static func render(_ mask: TextRasterizer.Mask, color: Color, effects: OverlayLayer.TextEffects,
                       highlightColor: Color? = nil, background: Background? = nil) throws -> VideoFrame {
        let grow = Int(effects.outlineWidth.rounded(.up)), shift = Int(effects.shadowOffset.rounded())
        let margin = margin(effects: effects, background: background)
        let width = mask.width + 2 * margin + max(0, shift), height = mask.height + 2 * margin + max(0, shift)
        // The masks placed in the padded frame; `all` is everything drawn (what the
        // outline and shadow surround).
        func placed(_ values: [UInt8]?, stride: Int = 1, channel: Int = 0) -> [Float] {
            var out = [Float](repeating: 0, count: width * height)
            guard let values else { return out }
            for y in 0..<mask.height {
                for x in 0..<mask.width {
                    out[(y + margin) * width + x + margin] = Float(values[(y * mask.width + x) * stride + channel]) / 255
                }
            }
            return out
        }
        let text = placed(mask.coverage), lit = placed(mask.highlight), colorAlpha = placed(mask.color, stride: 4, channel: 3)
        let layers = mask.layers.map { placed($0) }
        var all = text
        for i in all.indices { all[i] = max(all[i], lit[i], colorAlpha[i]) }
        for layer in layers { for i in all.indices where layer[i] > all[i] { all[i] = layer[i] } }
        let outline = grow > 0 ? dilate(all, width: width, height: height, radius: effects.outlineWidth) : all
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
        if let background {
            over(boxes(background, offset: margin, width: width, height: height), background.color, dx: 0, dy: 0)
        }
        // Boxes behind spans (WebVTT's `bg_` classes): the text's line box, no padding.
        for (box, boxColor) in mask.spanBoxes {
            over(boxes(Background(color: boxColor, padding: 0, cornerRadius: 0, boxes: [box]), offset: margin, width: width, height: height),
                 boxColor, dx: 0, dy: 0)
        }
        if shift > 0 { over(outline, effects.shadowColor, dx: shift, dy: shift) }
        if grow > 0 { over(outline, effects.outlineColor, dx: 0, dy: 0) }
        over(text, color, dx: 0, dy: 0)
        for (layer, layerColor) in zip(layers, mask.layerColors) { over(layer, layerColor, dx: 0, dy: 0) }
        if mask.highlight != nil { over(lit, highlightColor ?? color, dx: 0, dy: 0) }
        if let colors = mask.color {
            // Already premultiplied: "over" channel by channel.
            for y in 0..<mask.height {
                for x in 0..<mask.width {
                    let s = (y * mask.width + x) * 4
                    let alpha = Float(colors[s + 3]) / 255
                    guard alpha > 0 else { continue }
                    let i = ((y + margin) * width + x + margin) * 4
                    for c in 0..<4 { picture[i + c] = Float(colors[s + c]) / 255 + picture[i + c] * (1 - alpha) }
                }
            }
        }
        let frame = try VideoFrame(width: width, height: height, pixelFormat: .rgba)
        frame.withPlane(0) { bytes, stride in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<4 { bytes[y * stride + x * 4 + c] = UInt8((min(1, picture[(y * width + x) * 4 + c]) * 255).rounded()) }
                }
            }
        }
        return frame
    }

    /// The coverage of the background's rounded boxes (each grown by the padding), moved
    /// by `offset` into the picture; anti-aliased at the edges by the distance of each
    /// pixel's centre to the box's outline.
    static func boxes(_ background: Background, offset: Int, width: Int, height: Int) -> [Float] {
        var coverage = [Float](repeating: 0, count: width * height)
        for box in background.boxes {
            let x0 = max(0, box.x + offset - background.padding), y0 = max(0, box.y + offset - background.padding)
            let x1 = min(width, box.maxX + offset + background.padding), y1 = min(height, box.maxY + offset + background.padding)
            guard x1 > x0, y1 > y0 else { continue }
            let halfWidth = Double(x1 - x0) / 2, halfHeight = Double(y1 - y0) / 2
            let radius = min(max(0, background.cornerRadius), halfWidth, halfHeight)
            let cx = Double(x0) + halfWidth, cy = Double(y0) + halfHeight
            for y in y0..<y1 {
                for x in x0..<x1 {
                    // Signed distance to a rounded rectangle.
                    let qx = abs(Double(x) + 0.5 - cx) - (halfWidth - radius)
                    let qy = abs(Double(y) + 0.5 - cy) - (halfHeight - radius)
                    let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
                    let distance = outside + min(max(qx, qy), 0) - radius
                    let value = Float(min(1, max(0, 0.5 - distance)))
                    let i = y * width + x
                    coverage[i] = max(coverage[i], value)
                }
            }
        }
        return coverage
    }

    /// Each pixel takes the largest coverage within `radius` (a round pen), with the
    /// fractional part of the radius as a soft edge.
    static func dilate(_ coverage: [Float], width: Int, height: Int, radius: Double) -> [Float] {
        let reach = Int(radius.rounded(.up))
        // The pen's weights, worked out once rather than per pixel.
        var pen: [(dx: Int, dy: Int, weight: Float)] = []
        for dy in -reach...reach {
            for dx in -reach...reach {
                let distance = (Double(dx * dx + dy * dy)).squareRoot()
                let weight = Float(min(1, max(0, radius + 0.5 - distance)))
                if weight > 0 { pen.append((dx, dy, weight)) }
            }
        }
        var out = coverage
        // Spread from each inked pixel (most of a text picture is empty).
        for y in 0..<height {
            for x in 0..<width {
                let value = coverage[y * width + x]
                guard value > 0 else { continue }
                for (dx, dy, weight) in pen {
                    let tx = x + dx, ty = y + dy
                    guard tx >= 0, ty >= 0, tx < width, ty < height else { continue }
                    let i = ty * width + tx
                    out[i] = max(out[i], value * weight)
                }
            }
        }
        return out
    }
}
