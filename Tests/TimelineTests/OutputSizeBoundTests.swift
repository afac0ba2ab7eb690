import Testing
import DropcutTimeline

/// `size: 1080p` / `{ max: WxH }`: the source's shape fitted into the bound, never
/// upscaled, even sides; classes turn with a portrait source.
@Suite struct OutputSizeBoundTests {
    func size(_ w: Int, _ h: Int) -> PixelSize { PixelSize(width: w, height: h) }

    @Test func classesByName() {
        #expect(OutputSizeBound.sizeClass(named: "1080p") == .sizeClass(1080))
        #expect(OutputSizeBound.sizeClass(named: "720P") == .sizeClass(720))
        #expect(OutputSizeBound.sizeClass(named: "480p") == .sizeClass(480))
        #expect(OutputSizeBound.sizeClass(named: "2160p") == .sizeClass(2160))
        for bad in ["1080", "1081p", "p", "", "1080i", "-1080p", "4k", "1080pp", "99999999999999999999p"] {
            #expect(OutputSizeBound.sizeClass(named: bad) == nil, "\(bad)")
        }
    }

    @Test func classBoundTurnsWithThePortraitSource() {
        let hd = OutputSizeBound.sizeClass(1080)
        #expect(hd.bound(for: size(3840, 2160)) == size(1920, 1080))
        #expect(hd.bound(for: size(2160, 3840)) == size(1080, 1920))
        #expect(hd.bound(for: size(1000, 1000)) == size(1920, 1080))   // square: landscape bound
        #expect(OutputSizeBound.max(size(1920, 1080)).bound(for: size(2160, 3840)) == size(1920, 1080))   // max: as written
    }

    @Test(arguments: [
        // (source, class, expected)
        (PixelSize(width: 3840, height: 2160), 1080, PixelSize(width: 1920, height: 1080)),   // 4K phone clip
        (PixelSize(width: 2160, height: 3840), 1080, PixelSize(width: 1080, height: 1920)),   // 4K portrait
        (PixelSize(width: 1280, height: 720), 1080, PixelSize(width: 1280, height: 720)),     // never upscaled
        (PixelSize(width: 1920, height: 1080), 720, PixelSize(width: 1280, height: 720)),
        (PixelSize(width: 1080, height: 1920), 720, PixelSize(width: 720, height: 1280)),
        (PixelSize(width: 1920, height: 1080), 480, PixelSize(width: 854, height: 480)),
        (PixelSize(width: 1440, height: 1080), 720, PixelSize(width: 960, height: 720)),      // 4:3 keeps its shape
        (PixelSize(width: 4096, height: 2160), 2160, PixelSize(width: 3840, height: 2026)),   // DCI 4K: width bound
        (PixelSize(width: 1080, height: 1080), 720, PixelSize(width: 720, height: 720)),      // square
        (PixelSize(width: 654, height: 480), 480, PixelSize(width: 654, height: 480)),        // DV shown at 10:11
    ])
    func classSizes(source: PixelSize, lines: Int, expected: PixelSize) {
        #expect(OutputSizeBound.sizeClass(lines).size(for: source) == expected)
    }

    @Test func maxBoundFitsInside() {
        let bound = OutputSizeBound.max(size(1920, 1080))
        #expect(bound.size(for: size(3840, 2160)) == size(1920, 1080))
        #expect(bound.size(for: size(2160, 3840)) == size(608, 1080))     // portrait into a landscape box: 607.5 -> 608
        #expect(bound.size(for: size(640, 480)) == size(640, 480))
        #expect(bound.size(for: size(641, 481)) == size(640, 480))        // odd source sides rounded down to even
        #expect(OutputSizeBound.max(size(16, 16)).size(for: size(8000, 10)) == size(16, 2))   // never below 2
    }

    /// Every source from 2 to 4000 a side (sampled) into every class and some boxes: even,
    /// inside the bound, never larger than the source (up to rounding to even), the shape
    /// within a pixel of the source's.
    @Test func propertiesOverManySources() {
        var bounds: [OutputSizeBound] = OutputSizeBound.classes.map { .sizeClass($0.lines) }
        bounds += [.max(size(1920, 1080)), .max(size(16, 16)), .max(size(8192, 16)), .max(size(1080, 1350))]
        var checked = 0
        for w in Swift.stride(from: 2, through: 4000, by: 37) {
            for h in Swift.stride(from: 2, through: 4000, by: 41) {
                let source = size(w, h)
                for bound in bounds {
                    let out = bound.size(for: source)
                    let box = bound.bound(for: source)
                    #expect(out.isEven && out.width >= 2 && out.height >= 2)
                    #expect(out.width <= max(box.width, 2) && out.height <= max(box.height, 2), "\(source) \(bound) -> \(out)")
                    #expect(out.width <= w + 1 && out.height <= h + 1, "never upscaled: \(source) \(bound) -> \(out)")
                    if out.width > 2 && out.height > 2 && (w > box.width || h > box.height) {
                        // One side meets the bound.
                        #expect(out.width == box.width - box.width % 2 || out.height == box.height - box.height % 2, "\(source) \(bound) -> \(out)")
                        // Shape within rounding: each side off by at most one even step.
                        let scale = min(Double(box.width) / Double(w), Double(box.height) / Double(h))
                        #expect(abs(Double(out.width) - Double(w) * scale) <= 1.0001 && abs(Double(out.height) - Double(h) * scale) <= 1.0001,
                                "\(source) \(bound) -> \(out)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 50_000)
    }
}
