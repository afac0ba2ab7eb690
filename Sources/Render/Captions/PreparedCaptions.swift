import Logging
import DropcutMediaIO
import DropcutTimeline

/// A captions layer in the overlay tree: each frame, the cues showing (and, with a
/// highlight colour, each one's lit word) are found; only when that set differs from the
/// last frame's are the cues set and rasterised again — a cue whose text and lit word
/// did not change keeps its raster — so a caption held for three seconds is laid out
/// once, not ninety times, and a frame that changes nothing allocates nothing.
final class PreparedCaptions {
    /// One cue as drawn: which, and which of its words is lit (nil: none, or no highlight).
    struct Shown: Hashable {
        var cue: Int
        var word: Int?
    }

    /// A cue's raster where it goes on the canvas (even corner).
    struct Drawn {
        var shown: Shown
        var raster: OverlayRaster
        var x: Int
        var y: Int
        /// How it was set: the em (the style's or smaller), and the UTF-8 range of the cue's
        /// text on each line (together, all of it).
        var pixelSize: Double
        var lineRanges: [Range<Int>]
        var lineCount: Int { lineRanges.count }
    }

    let layer: OverlayLayer
    let track: CaptionTrack
    private let style: ResolvedCaptionStyle
    private let fonts: FontSet
    private let renderSize: PixelSize
    private let hlg: HLGConversionLUT?
    private let limit: PixelSize
    /// What the last frame showed, and this frame's (reused, so finding it allocates
    /// nothing once its capacity is reached).
    private(set) var shown: [Shown] = []
    private var scratch: [Shown] = []
    /// The rasters of `shown`, placed.
    private(set) var drawn: [Drawn] = []
    /// How many times cues were set and rasterised (for tests of the reuse).
    private(set) var rasterisations = 0
    /// The frame being made: how opaque, and the canvas pixels covered.
    var opacity: Double = 0
    var box: PixelRect?
    /// Where the warning about a cue set smaller than the style's size goes: the export's
    /// job log (nil: nowhere, as for a poster).
    private let logger: Logger?
    /// That warning, once made: the first cue that had to be set smaller, and its size.
    /// Made once per captions track, so a file of long cues does not flood the log.
    private(set) var shrinkWarning: String?

    /// Opens the style's fonts (and the fallbacks) and checks the style against the output;
    /// nothing is set until a cue shows.
    init(layer: OverlayLayer, track: CaptionTrack, renderSize: PixelSize, hlg: HLGConversionLUT?, limit: PixelSize,
         logger: Logger? = nil) throws {
        self.layer = layer
        self.logger = logger
        self.track = track
        self.renderSize = renderSize
        self.hlg = hlg
        self.limit = limit
        do {
            style = try ResolvedCaptionStyle(track.style, output: renderSize)
        } catch {
            throw OverlayRenderer.PreparationError(path: "captions", reason: error.description)
        }
        guard !track.style.fontPaths.isEmpty else {
            throw OverlayRenderer.PreparationError(path: "captions", reason: "the style names no font")
        }
        do {
            // Unhinted, at subpixel positions, as libass sets subtitles: the words of a long
            // line land where the font's advances put them (CaptionLibassReferenceTests).
            fonts = try FontSet(paths: track.style.fontPaths, hinted: false, language: track.style.language)
        } catch {
            throw OverlayRenderer.PreparationError(path: error.path, reason: "cannot open the font (FreeType error \(error.code))")
        }
        scratch.reserveCapacity(8)
        shown.reserveCapacity(8)
    }

    /// Finds what shows at `time` and, if it changed, sets and places it again.
    func place(at time: MediaTime) throws {
        opacity = layer.timeRange.contains(time) ? layer.opacity(at: time) : 0
        box = nil
        scratch.removeAll(keepingCapacity: true)
        if opacity > 0 { active(at: time, into: &scratch) }
        if scratch != shown {
            swap(&scratch, &shown)
            try redraw()
        }
        guard opacity > 0 else { return }
        for item in drawn {
            let rect = PixelRect(x: item.x, y: item.y, width: item.raster.width, height: item.raster.height)
            box = box.map { OverlayRenderer.union($0, rect) } ?? rect
        }
    }

    /// The cues showing at `time` in start order, as `CaptionTrack.activeCues(at:)` finds
    /// them, with their lit words, appended to `out` (no array made per frame).
    func active(at time: MediaTime, into out: inout [Shown]) {
        let highlight = track.style.highlightColor != nil
        track.forEachActiveCue(at: time) { index in
            out.append(Shown(cue: index, word: highlight ? track.cues[index].word(at: time) : nil))
        }
    }

    /// Sets the cues of `shown` (reusing the raster of a cue drawn the same last time) and
    /// places them.
    private func redraw() throws {
        var pictures: [(drawn: Drawn, item: CaptionPlacer.Item)] = []
        for entry in shown {
            let cue = track.cues[entry.cue]
            if let kept = drawn.first(where: { $0.shown == entry }), let item = items[entry] {
                pictures.append((kept, item))
                continue
            }
            let lit = entry.word.flatMap { $0 < cue.words.count ? cue.words[$0].textRange : nil }
            let picture: CaptionPicture
            do {
                picture = try CaptionPicture.make(cue.text, markup: CaptionMarkup(spans: cue.styles), lit: lit, alignment: cue.placement.alignment, style: style,
                                                  fonts: fonts, limit: limit)
            } catch {
                throw OverlayRenderer.PreparationError(path: "captions", reason: Self.describe(error, cue: cue.text, limit: limit))
            }
            rasterisations += 1
            if shrinkWarning == nil, picture.pixelSize < style.em * 0.999 { warnShrunk(cue.text, pixels: picture.pixelSize) }
            let raster = OverlayRaster.make(from: picture.frame, hlg: hlg)
            let item = CaptionPlacer.Item(width: raster.width, height: raster.height, placement: cue.placement,
                                          isRightToLeft: picture.isRightToLeft, lineHeight: picture.lineHeight)
            pictures.append((Drawn(shown: entry, raster: raster, x: 0, y: 0, pixelSize: picture.pixelSize,
                                   lineRanges: picture.lineRanges), item))
        }
        let corners = CaptionPlacer.place(pictures.map(\.item), safe: style.safe, position: track.style.position, output: renderSize)
        items = Dictionary(pictures.map { ($0.drawn.shown, $0.item) }, uniquingKeysWith: { first, _ in first })
        drawn = zip(pictures, corners).map { picture, corner in
            var placed = picture.drawn
            placed.x = corner.x
            placed.y = corner.y
            return placed
        }
    }

    /// Says, once, that a cue was drawn smaller than the style asks (too many lines for
    /// `maxLines`, or for the safe area): its first words, the size used and the style's.
    private func warnShrunk(_ text: String, pixels: Double) {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        let first = words.prefix(6).joined(separator: " ") + (words.count > 6 ? " …" : "")
        func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        let message = "captions: the cue \"\(first)\" was set at \(rounded(pixels)) px, smaller than the style's "
            + "\(rounded(style.em)) px (\(Int((pixels / style.em * 100).rounded())) %), to fit every line in the safe area "
            + "or within max_lines; told once per captions track"
        shrinkWarning = message
        logger?.warning("\(message)", metadata: ["output": "\(renderSize)"])
    }

    /// The placement facts of the rasters in `drawn`, to place a kept one again.
    private var items: [Shown: CaptionPlacer.Item] = [:]

    private static func describe(_ error: CaptionPicture.Failure, cue: String, limit: PixelSize) -> String {
        switch error {
        case let .font(error): return "\(error.path): cannot set the cue \"\(cue.prefix(40))\" (FreeType error \(error.code))"
        case .outOfMemory: return "cannot allocate the picture of the cue \"\(cue.prefix(40))\""
        case let .tooLarge(size): return "the cue \"\(cue.prefix(40))\" would be \(size) pixels, larger than an overlay may be (\(limit))"
        }
    }

    /// Draws the placed cues onto `target` at `opacity` (the groups' around it).
    func render(into target: OverlayTarget, opacity: Double) {
        let alpha = Float(self.opacity * opacity)
        guard alpha > 0 else { return }
        for item in drawn { target.blend(item.raster, x: item.x, y: item.y, opacity: alpha) }
    }
}
