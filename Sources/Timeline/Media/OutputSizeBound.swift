/// `output.size: { max: 1920x1080 }` or `1080p`: a bound the output's size is fitted into,
/// keeping the source's display shape and never upscaling (AVFoundation's export presets
/// choose 640x480 ... 1920x1080 from the source the same way).
///
/// A class (`1080p`) is the bound on the longer side's class, orientation-aware: a
/// landscape or square source gets 1920x1080 as its bound, a portrait one 1080x1920.
/// `max` is the bound as written.
public enum OutputSizeBound: Sendable, Hashable, CustomStringConvertible {
    /// Fit inside this size (even sides).
    case max(PixelSize)
    /// A height class: 480, 720, 1080 or 2160 lines (of a landscape picture).
    case sizeClass(Int)

    /// The classes and their landscape bounds (16:9, even sides).
    public static let classes: [(lines: Int, bound: PixelSize)] = [
        (480, PixelSize(width: 854, height: 480)),
        (720, PixelSize(width: 1280, height: 720)),
        (1080, PixelSize(width: 1920, height: 1080)),
        (2160, PixelSize(width: 3840, height: 2160)),
    ]

    /// `1080p` -> `.sizeClass(1080)`; nil for anything else.
    public static func sizeClass(named text: String) -> OutputSizeBound? {
        let t = text.lowercased()
        guard t.hasSuffix("p"), let lines = Int(t.dropLast()), classes.contains(where: { $0.lines == lines }) else { return nil }
        return .sizeClass(lines)
    }

    public var description: String {
        switch self {
        case let .max(size): return "max \(size)"
        case let .sizeClass(lines): return "\(lines)p"
        }
    }

    /// The bound a source of display size `source` is fitted into.
    public func bound(for source: PixelSize) -> PixelSize {
        switch self {
        case let .max(size):
            return size
        case let .sizeClass(lines):
            let landscape = Self.classes.first { $0.lines == lines }?.bound ?? PixelSize(width: 1920, height: 1080)
            return source.height > source.width ? PixelSize(width: landscape.height, height: landscape.width) : landscape
        }
    }

    /// The output size for a source of display size `source`: the source's shape scaled
    /// down to fit inside the bound (never up), each side rounded to the nearest even
    /// number, at least 2, at most the bound's side.
    public func size(for source: PixelSize) -> PixelSize {
        let bound = bound(for: source)
        guard source.width > 0, source.height > 0 else { return bound.evenRoundedDown }
        if source.width <= bound.width && source.height <= bound.height { return source.evenRoundedDown }
        // The side that meets the bound is exact; the other is scaled and rounded.
        let widthScale = Double(bound.width) / Double(source.width)
        let heightScale = Double(bound.height) / Double(source.height)
        func even(_ value: Double, limit: Int) -> Int {
            Swift.min(limit - limit % 2, Swift.max(2, 2 * Int((value / 2).rounded())))
        }
        if widthScale <= heightScale {
            return PixelSize(width: even(Double(bound.width), limit: bound.width),
                             height: even(Double(source.height) * widthScale, limit: bound.height))
        }
        return PixelSize(width: even(Double(source.width) * heightScale, limit: bound.width),
                         height: even(Double(bound.height), limit: bound.height))
    }
}
