import DropcutTimeline

/// The recipe's overlay lengths against `OverlayLimits`: a text's `size`, an image's
/// `width` and a group's `bounds` at most twice the output's side they are measured
/// against (height for text). `validate` checks a recipe against its `output.size` (or the
/// largest output when the size comes from the source); the builder checks again against
/// the real output size.
package enum OverlaySizeCheck {
    /// The overlays (and groups' children, laid out in their group's box) that ask for
    /// more than `OverlayLimits.largestPicture(on: output)`: a message and where the overlay is written.
    package static func problems(in overlays: [Recipe.Overlay], output: PixelSize) -> [(message: String, location: SourceLocation)] {
        var found: [(String, SourceLocation)] = []
        check(overlays, box: Size(width: Double(output.width), height: Double(output.height)), limit: OverlayLimits.largestPicture(on: output), into: &found)
        return found
    }

    private static func check(_ overlays: [Recipe.Overlay], box: Size, limit: PixelSize, into found: inout [(String, SourceLocation)]) {
        func tooLarge(_ what: String, _ pixels: Double, _ most: Int, side: String) -> String? {
            pixels > Double(most) ? "overlay \(what) is \(formatNumber(pixels.rounded())) px; an overlay may be at most \(OverlayLimits.factor) times the output's \(side) (\(most) px)" : nil
        }
        for overlay in overlays {
            var message: String?
            switch overlay.content {
            case let .text(_, _, size, _):
                message = tooLarge("text size", size.pixels(of: box.height), limit.height, side: "height")
            case .image, .imageSequence:
                if let width = overlay.width { message = tooLarge("width", width.pixels(of: box.width), limit.width, side: "width") }
            case let .group(children, width, height):
                let inner = Size(width: width?.pixels(of: box.width) ?? box.width, height: height?.pixels(of: box.height) ?? box.height)
                message = tooLarge("group width", inner.width, limit.width, side: "width")
                    ?? tooLarge("group height", inner.height, limit.height, side: "height")
                if message == nil { check(children, box: inner, limit: limit, into: &found) }
            }
            if let message { found.append((message, overlay.location)) }
        }
    }
}
