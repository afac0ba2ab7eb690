import Testing
@testable import DropcutMediaIO

/// GIF frames' palettes: few colours come out exact, many are split where the pixels are.
@Suite struct MedianCutPaletteTests {
    @Test func fewColoursAreKeptExactlyAtTheirCells() {
        var histogram = [Int](repeating: 0, count: 1 << 15)
        let colours: [(UInt8, UInt8, UInt8)] = [(0, 0, 0), (255, 0, 0), (0, 200, 40), (250, 250, 250)]
        for (i, c) in colours.enumerated() { histogram[MedianCutPalette.cell(c.0, c.1, c.2)] += 100 * (i + 1) }
        var palette = MedianCutPalette(histogram: histogram)
        #expect(palette.colours.count == 4)
        for c in colours {
            let entry = palette.colours[Int(palette.index(r: c.0, g: c.1, b: c.2))]
            let (r, g, b) = (Int(entry >> 16 & 0xFF), Int(entry >> 8 & 0xFF), Int(entry & 0xFF))
            // The centre of the colour's 5-bit cell.
            #expect(abs(r - Int(c.0)) <= 4 && abs(g - Int(c.1)) <= 4 && abs(b - Int(c.2)) <= 4, "\(c) -> \(r), \(g), \(b)")
            #expect(entry >> 24 == 0xFF)
        }
    }

    @Test func aFullGradientGetsAllItsColoursClose() {
        var histogram = [Int](repeating: 0, count: 1 << 15)
        var samples: [(UInt8, UInt8, UInt8)] = []
        for r in stride(from: 0, through: 255, by: 17) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 51) {
                    samples.append((UInt8(r), UInt8(g), UInt8(b)))
                    histogram[MedianCutPalette.cell(UInt8(r), UInt8(g), UInt8(b))] += 1
                }
            }
        }
        var palette = MedianCutPalette(histogram: histogram)
        #expect(palette.colours.count == 256)
        var worst = 0
        for c in samples {
            let entry = palette.colours[Int(palette.index(r: c.0, g: c.1, b: c.2))]
            let d = max(abs(Int(entry >> 16 & 0xFF) - Int(c.0)), abs(Int(entry >> 8 & 0xFF) - Int(c.1)), abs(Int(entry & 0xFF) - Int(c.2)))
            worst = max(worst, d)
        }
        // 1536 colours into 256: each within a box of a few cells.
        #expect(worst <= 48, "worst channel error \(worst)")
    }

    @Test func anEmptyPictureHasOneBlackColour() {
        var palette = MedianCutPalette(histogram: [Int](repeating: 0, count: 1 << 15))
        #expect(palette.colours == [0xFF00_0000] && palette.index(r: 9, g: 9, b: 9) == 0)
    }
}
