/// A 256-colour palette for one RGB picture by median cut (Heckbert): the picture's
/// colours, at 5 bits a channel, are split box by box — the box holding the most pixels
/// across its widest channel, at that channel's median — and each box becomes the mean
/// of its pixels. `index(r:g:b:)` is the nearest palette colour, looked up once per 5-bit
/// cell. Pure Swift, for GIF frames.
struct MedianCutPalette {
    /// 0xAARRGGBB, opaque; at most 256.
    private(set) var colours: [UInt32] = []
    private var rgb: [(r: Int, g: Int, b: Int)] = []
    /// Per 5-bit cell: the palette index + 1, 0 when not looked up yet.
    private var lookup = [UInt16](repeating: 0, count: 1 << 15)

    static func cell(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int { Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3) }

    /// `histogram`: pixels per 5-bit cell (`cell(r, g, b)`).
    init(histogram: [Int], maximumColours: Int = 256) {
        struct Box { var cells: [Int]; var pixels: Int }
        func channel(_ cell: Int, _ c: Int) -> Int { (cell >> (10 - 5 * c)) & 31 }
        let occupied = histogram.indices.filter { histogram[$0] > 0 }
        var boxes = [Box(cells: occupied, pixels: occupied.reduce(0) { $0 + histogram[$1] })]
        while boxes.count < maximumColours {
            // The box to split: most pixels times its widest range (a box of one cell cannot be split).
            var best = -1, bestScore = 0, bestChannel = 0
            for (i, box) in boxes.enumerated() where box.cells.count > 1 {
                for c in 0..<3 {
                    var low = 31, high = 0
                    for cell in box.cells { let v = channel(cell, c); low = Swift.min(low, v); high = Swift.max(high, v) }
                    let score = (high - low) * box.pixels
                    if score > bestScore { best = i; bestScore = score; bestChannel = c }
                }
            }
            guard best >= 0 else { break }
            let c = bestChannel
            let sorted = boxes[best].cells.sorted { channel($0, c) < channel($1, c) }
            var seen = 0, cut = 1
            for (i, cell) in sorted.enumerated() {
                seen += histogram[cell]
                if seen * 2 >= boxes[best].pixels { cut = Swift.max(1, Swift.min(sorted.count - 1, i + 1)); break }
            }
            let first = Array(sorted[..<cut]), second = Array(sorted[cut...])
            boxes[best] = Box(cells: first, pixels: first.reduce(0) { $0 + histogram[$1] })
            boxes.append(Box(cells: second, pixels: second.reduce(0) { $0 + histogram[$1] }))
        }
        for box in boxes where box.pixels > 0 {
            var sums = (0, 0, 0)
            for cell in box.cells {
                let n = histogram[cell]
                sums.0 += (channel(cell, 0) * 8 + 4) * n
                sums.1 += (channel(cell, 1) * 8 + 4) * n
                sums.2 += (channel(cell, 2) * 8 + 4) * n
            }
            let r = sums.0 / box.pixels, g = sums.1 / box.pixels, b = sums.2 / box.pixels
            rgb.append((r, g, b))
            colours.append(0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
        }
        if colours.isEmpty {
            rgb = [(0, 0, 0)]
            colours = [0xFF00_0000]
        }
    }

    /// The palette index nearest (r, g, b)'s 5-bit cell.
    mutating func index(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
        let cell = Self.cell(r, g, b)
        if lookup[cell] != 0 { return UInt8(lookup[cell] - 1) }
        let cr = Int(r >> 3) * 8 + 4, cg = Int(g >> 3) * 8 + 4, cb = Int(b >> 3) * 8 + 4
        var best = 0, bestDistance = Int.max
        for (i, c) in rgb.enumerated() {
            let dr = c.r - cr, dg = c.g - cg, db = c.b - cb
            // Green weighs most, blue least, as the eye sees differences.
            let distance = 3 * dr * dr + 4 * dg * dg + 2 * db * db
            if distance < bestDistance { best = i; bestDistance = distance }
        }
        lookup[cell] = UInt16(best + 1)
        return UInt8(best)
    }
}
