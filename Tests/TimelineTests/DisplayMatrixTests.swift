import Foundation
import PropertyBased
import Testing
@testable import DropcutTimeline

/// The display matrix against libavutil/display.h's definition — a source pixel `(p, q)`
/// is shown at `p' = a·p + c·q + x`, `q' = b·p + d·q + y` — for all eight exact moves, and
/// its decomposition (mirror, then turn clockwise) against the moves composed by hand.
@Suite struct DisplayMatrixTests {
    /// Each exact linear part `(a, b, c, d)` and where it shows a `w × h` picture's pixel
    /// `(x, y)`, written out from the definition (pixel centres, so `w - 1 - x`).
    static let cases: [(a: Int32, b: Int32, c: Int32, d: Int32, turns: Int, mirrored: Bool,
                        moves: @Sendable (Int, Int, Int, Int) -> (Int, Int))] = [
        (1, 0, 0, 1, 0, false, { x, y, _, _ in (x, y) }),
        (0, 1, -1, 0, 1, false, { x, y, _, h in (h - 1 - y, x) }),
        (-1, 0, 0, -1, 2, false, { x, y, w, h in (w - 1 - x, h - 1 - y) }),
        (0, -1, 1, 0, 3, false, { x, y, w, _ in (y, w - 1 - x) }),
        (-1, 0, 0, 1, 0, true, { x, y, w, _ in (w - 1 - x, y) }),
        (1, 0, 0, -1, 2, true, { x, y, _, h in (x, h - 1 - y) }),
        (0, 1, 1, 0, 3, true, { x, y, _, _ in (y, x) }),               // the transpose
        (0, -1, -1, 0, 1, true, { x, y, w, h in (h - 1 - y, w - 1 - x) }), // the anti-transpose
    ]

    /// The nine stored numbers of an exact matrix (16.16; w = 1 in 2.30), no translation.
    static func stored(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32, x: Int32 = 0, y: Int32 = 0) -> [Int32] {
        [a << 16, b << 16, 0, c << 16, d << 16, 0, x << 16, y << 16, 1 << 30]
    }

    @Test(arguments: 0..<8)
    func preferredTransformShowsEachPixelWhereTheDefinitionSays(index: Int) throws {
        let move = Self.cases[index]
        let matrix = try #require(DisplayMatrix(fixedPoint: Self.stored(move.a, move.b, move.c, move.d)))
        #expect(matrix.clockwiseQuarterTurns == move.turns && matrix.isMirrored == move.mirrored)
        for (w, h) in [(4, 2), (3, 5), (320, 240)] {
            let transform = matrix.preferredTransform(naturalSize: PixelSize(width: w, height: h))
            let shown = PixelSize(width: w, height: h).applying(transform)
            #expect(shown == (index == 1 || index == 3 || index >= 6 ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)))
            for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w / 2, h / 3)] {
                // A pixel's centre goes to the centre of the pixel the definition names.
                let centre = transform.apply(to: Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                let expected = move.moves(x, y, w, h)
                #expect(centre.x == Double(expected.0) + 0.5 && centre.y == Double(expected.1) + 0.5,
                        "matrix \(move.a) \(move.b) \(move.c) \(move.d): pixel (\(x),\(y)) of \(w)x\(h) at \(centre), expected \(expected)")
            }
        }
    }

    @Test(arguments: 0..<8)
    func decompositionIsMirrorThenClockwiseTurn(index: Int) throws {
        let move = Self.cases[index]
        let matrix = try #require(DisplayMatrix(fixedPoint: Self.stored(move.a, move.b, move.c, move.d)))
        let mirror = matrix.isMirrored ? AffineTransform(scaleX: -1, y: 1) : .identity
        let composed = mirror.concatenating(AffineTransform(quarterTurns: matrix.clockwiseQuarterTurns))
        #expect(composed == matrix.exactLinearPart)
        #expect((matrix.exactLinearPart.determinant < 0) == move.mirrored)
    }

    @Test func translationInTheFileDoesNotMatter() throws {
        let size = PixelSize(width: 320, height: 240)
        for move in Self.cases {
            let bare = try #require(DisplayMatrix(fixedPoint: Self.stored(move.a, move.b, move.c, move.d)))
            let moved = try #require(DisplayMatrix(fixedPoint: Self.stored(move.a, move.b, move.c, move.d, x: 240, y: -7)))
            #expect(bare.preferredTransform(naturalSize: size) == moved.preferredTransform(naturalSize: size))
        }
    }

    @Test func portraitIPhoneMatrixIsAVFoundationsPreferredTransform() throws {
        let matrix = try #require(DisplayMatrix(fixedPoint: Self.stored(0, 1, -1, 0, x: 1080)))
        #expect(matrix.preferredTransform(naturalSize: PixelSize(width: 1920, height: 1080))
                == AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
    }

    /// A matrix scaled, or turned a few degrees off a quarter, shows as the nearest exact
    /// move; a degenerate one as the identity.
    @Test func nearMatricesSnapToTheNearestExactMove() async {
        let input = zip(Gen.int(in: 0...7), Gen.double(in: 0.25...4), Gen.double(in: -40...40))
        await propertyCheck(count: 300, input: input) { index, scale, degrees in
            let move = Self.cases[index]
            let angle = degrees * .pi / 180, (cosine, sine) = (cos(angle), sin(angle))
            // Turn the exact move by `degrees` more and scale it.
            let a = Double(move.a), b = Double(move.b), c = Double(move.c), d = Double(move.d)
            let turned = DisplayMatrix(a: scale * (a * cosine - b * sine), b: scale * (a * sine + b * cosine),
                                       c: scale * (c * cosine - d * sine), d: scale * (c * sine + d * cosine))
            #expect(turned.exactLinearPart == AffineTransform(a: a, b: b, c: c, d: d, tx: 0, ty: 0))
        }
        #expect(DisplayMatrix(a: 0, b: 0, c: 0, d: 0).exactLinearPart == .identity)
        #expect(DisplayMatrix(a: .nan, b: 0, c: 0, d: 1).exactLinearPart == .identity)
        #expect(DisplayMatrix(fixedPoint: [1, 2, 3]) == nil)
    }
}
