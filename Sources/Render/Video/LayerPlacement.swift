import DropcutMediaIO
import DropcutTimeline

/// Where and how one layer's frame lands on the canvas, in whole pixels: the part of the
/// frame to take (the crop), the exact pixel move (orientation), and the destination
/// rectangle — scaled to when its size differs from the oriented crop's.
///
/// Destination origins are even so 4:2:0 chroma lines up with luma; sizes come from the
/// transform's scale, so an unscaled layer stays unscaled (a pure pixel move).
///
/// Anamorphic frames: the transform and the crop are in display (square) pixels — the
/// track's natural size — while the crop taken is in the frame's stored pixels; the
/// destination's size comes from the display size, so the scaler widens (or narrows) the
/// stored pixels to square ones on the way.
package struct LayerPlacement: Sendable, Hashable {
    /// The part of the source frame used, in stored pixels (origin even).
    package var crop: PixelRect
    package var orientation: Orientation
    /// Where the oriented crop goes on the canvas; may reach outside it (push transitions).
    package var destination: PixelRect

    /// The oriented crop's size, before any scaling.
    package var orientedSize: PixelSize {
        orientation.swapsAxes ? PixelSize(width: crop.height, height: crop.width) : PixelSize(width: crop.width, height: crop.height)
    }

    package var needsScaling: Bool {
        orientedSize.width != destination.width || orientedSize.height != destination.height
    }

    /// Why a layer cannot be placed by pixel moves and scaling.
    package struct Unsupported: Error, Sendable, Hashable, CustomStringConvertible {
        package var transform: AffineTransform
        package var description: String {
            "layer transform \(transform.timelineDescription) turns by other than a multiple of 90° or shears; dropcut composites only quarter turns, mirrors, scales and moves"
        }
    }

    /// Places a `frameSize` frame (stored pixels) shown at `displaySize` (square pixels;
    /// nil: the frame size) with crop rectangle `crop` (display pixels, `.infinite` for
    /// none) and layer transform `transform`. Nil when nothing of the frame is left after
    /// cropping, or it collapses to nothing on the canvas.
    package static func place(frameSize: PixelSize, displaySize: PixelSize? = nil, crop: Rect,
                             transform: AffineTransform) throws(Unsupported) -> LayerPlacement? {
        let shown = displaySize ?? frameSize
        guard shown != frameSize else { return try place(frameSize: frameSize, crop: crop, transform: transform) }
        guard shown.width > 0, shown.height > 0,
              let square = try place(frameSize: shown, crop: crop, transform: transform) else { return nil }
        // The crop found in display pixels, taken from the stored ones: the same edges,
        // scaled (origin floored to even, far edge rounded).
        let sx = Double(frameSize.width) / Double(shown.width), sy = Double(frameSize.height) / Double(shown.height)
        let x0 = ChromaGrid.floor(Double(square.crop.x) * sx), y0 = ChromaGrid.floor(Double(square.crop.y) * sy)
        let x1 = min(frameSize.width, Int((Double(square.crop.maxX) * sx).rounded()))
        let y1 = min(frameSize.height, Int((Double(square.crop.maxY) * sy).rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        return LayerPlacement(crop: PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0),
                              orientation: square.orientation, destination: square.destination)
    }

    /// Places a frame shown in its own (square) pixels.
    private static func place(frameSize: PixelSize, crop: Rect, transform: AffineTransform) throws(Unsupported) -> LayerPlacement? {
        guard let (orientation, scaleX, scaleY) = Orientation.of(a: transform.a, b: transform.b, c: transform.c, d: transform.d) else {
            throw Unsupported(transform: transform)
        }
        // Crop: within the frame, origin floored to even (chroma), far edge rounded.
        let frameRect = Rect(x: 0, y: 0, width: Double(frameSize.width), height: Double(frameSize.height))
        let clipped = crop.isInfinite ? frameRect : intersect(crop, frameRect)
        guard let clipped else { return nil }
        let x0 = ChromaGrid.floor(clipped.x), y0 = ChromaGrid.floor(clipped.y)
        let x1 = min(frameSize.width, Int(clipped.maxX.rounded())), y1 = min(frameSize.height, Int(clipped.maxY.rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        let cropRect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)

        // Destination: the transformed crop's box; its size from the scale alone.
        let box = transform.boundingBox(of: Size(width: Double(cropRect.width), height: Double(cropRect.height)))
        let origin = transform.apply(to: Point(x: Double(cropRect.x), y: Double(cropRect.y)))
        let shifted = Rect(x: box.x + origin.x - transform.tx, y: box.y + origin.y - transform.ty, width: box.width, height: box.height)
        let oriented = orientation.swapsAxes ? (cropRect.height, cropRect.width) : (cropRect.width, cropRect.height)
        let width = Int((Double(oriented.0) * scaleX).rounded()), height = Int((Double(oriented.1) * scaleY).rounded())
        guard width > 0, height > 0 else { return nil }
        let destination = PixelRect(x: ChromaGrid.round(shifted.x), y: ChromaGrid.round(shifted.y), width: width, height: height)
        return LayerPlacement(crop: cropRect, orientation: orientation, destination: destination)
    }

    private static func intersect(_ a: Rect, _ b: Rect) -> Rect? {
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y), x1 = min(a.maxX, b.maxX), y1 = min(a.maxY, b.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
