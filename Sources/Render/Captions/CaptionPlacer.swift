import DropcutMediaIO
import DropcutTimeline

/// Where each showing cue's picture goes: inside the safe rectangle, always. Cues without
/// a WebVTT `line` are stacked at the style's position (bottom, top, middle), the earliest
/// lowest, as WebVTT moves a later cue up over an earlier one; a cue's `line` puts it at a
/// percentage of the frame's height (its top, middle or bottom there, by its line
/// alignment) or a line number (negative: from the bottom), its `position` across (its
/// left, centre or right there, by its computed position alignment, WebVTT's "apply
/// WebVTT cue settings"); then it is pushed back inside the safe rectangle. Every corner
/// lands on an even pixel (4:2:0 chroma sites) on the inside.
enum CaptionPlacer {
    /// One picture to place.
    struct Item {
        var width: Int
        var height: Int
        var placement: CuePlacement
        var isRightToLeft: Bool
        var lineHeight: Int
    }

    /// The top-left corners of `items` (in start order) on an `output` frame.
    static func place(_ items: [Item], safe: PixelBox, position: CaptionStyle.Position, output: PixelSize) -> [(x: Int, y: Int)] {
        // The automatic ones stacked: their block's height, then each one's top in it
        // (the earliest at the bottom).
        let stacked = items.filter { $0.placement.line == nil }
        let blockHeight = stacked.reduce(0) { $0 + $1.height }
        let blockTop: Double
        switch position {
        case .bottom: blockTop = Double(safe.maxY - blockHeight)
        case .top: blockTop = Double(safe.y)
        case .middle: blockTop = Double(safe.y) + Double(safe.height - blockHeight) / 2
        }
        // The bottom of the next stacked cue: each sits on the one before it, so rounding
        // to even pixels never makes two overlap.
        var bottom = Int((blockTop + Double(blockHeight)).rounded())
        return items.map { item in
            let y: Double
            switch item.placement.line {
            case nil:
                let top = clamp(Double(bottom - item.height), low: safe.y, high: min(bottom, safe.maxY) - item.height)
                bottom = top
                y = Double(top)
            case let .percent(percent)?:
                // WebVTT with snap-to-lines off: the line alignment names the edge of the
                // box at the percentage.
                let edge: Double
                switch item.placement.lineAlignment {
                case .start: edge = 0
                case .center: edge = 0.5
                case .end: edge = 1
                }
                y = percent / 100 * Double(output.height) - edge * Double(item.height)
            case let .number(number)?:
                // Whole lines from the safe top or bottom (WebVTT's snap-to-lines, where
                // the line alignment does not apply).
                y = number >= 0 ? Double(safe.y + number * item.lineHeight)
                    : Double(safe.maxY + (number + 1) * item.lineHeight - item.height)
            }
            let x = horizontal(item, safe: safe, output: output)
            return (clamp(x, low: safe.x, high: safe.maxX - item.width), clamp(y, low: safe.y, high: safe.maxY - item.height))
        }
    }

    /// The left edge by `position` (percent of the width) and the computed position
    /// alignment: the box's left (line-left), centre or right (line-right) at that point.
    /// Without a position, the box goes against the safe edge that alignment names
    /// (centred for center): WebVTT's computed position there is 0, 50 or 100 % of the
    /// frame, which the safe area would move it back from anyway.
    private static func horizontal(_ item: Item, safe: PixelBox, output: PixelSize) -> Double {
        let side: Double   // 0: the box's left at the point, 0.5 its centre, 1 its right
        switch computedPositionAlignment(item.placement, rightToLeft: item.isRightToLeft) {
        case .lineLeft: side = 0
        case .center: side = 0.5
        case .lineRight: side = 1
        }
        let point = item.placement.position.map { $0 / 100 * Double(output.width) }
            ?? Double(safe.x) + side * Double(safe.width)
        return point - side * Double(item.width)
    }

    /// The edge of the box `position` names (WebVTT's "computed position alignment"):
    /// the cue's position alignment, or when that is auto, its text alignment's —
    /// `start` is the side its lines start on (the right for a right-to-left cue).
    enum ComputedPositionAlignment: Equatable {
        case lineLeft, center, lineRight
    }

    static func computedPositionAlignment(_ placement: CuePlacement, rightToLeft: Bool) -> ComputedPositionAlignment {
        switch placement.positionAlignment {
        case .lineLeft: return .lineLeft
        case .center: return .center
        case .lineRight: return .lineRight
        case .auto:
            switch placement.alignment {
            case .left: return .lineLeft
            case .right: return .lineRight
            case .center: return .center
            case .start: return rightToLeft ? .lineRight : .lineLeft
            case .end: return rightToLeft ? .lineLeft : .lineRight
            }
        }
    }

    /// `value` on the nearest even pixel within `low ... high` (`low` even); `low` when the
    /// range is empty (a picture larger than the safe area keeps its top-left inside; only
    /// cues stacked past the safe area's height get there, and overlap rather than leave it).
    static func clamp(_ value: Double, low: Int, high: Int) -> Int {
        guard value.isFinite else { return low }
        let highEven = high - (((high % 2) + 2) % 2)
        let nearest = Int((min(Double(Int32.max), max(Double(Int32.min), value)) / 2).rounded()) * 2
        return max(low, min(highEven, nearest))
    }
}
