import DropcutTimeline

/// An integer rectangle of pixels in a frame: a crop region or a destination region.
package struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// A `size` rectangle at the origin: a whole picture.
    package init(size: PixelSize) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    package var maxX: Int { x + width }
    package var maxY: Int { y + height }

    /// The overlap of two rectangles, nil when they do not overlap.
    package func intersection(_ other: PixelRect) -> PixelRect? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    package var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
