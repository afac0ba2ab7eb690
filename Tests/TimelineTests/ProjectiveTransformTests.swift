import PropertyBased
import Testing
@testable import DropcutTimeline

/// The projective maps overlays are drawn with: 2D rotation and perspective spins.
@Suite struct ProjectiveTransformTests {
    static func close(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
        abs(a.x - b.x) < tolerance && abs(a.y - b.y) < tolerance
    }

    @Test func rotationTurnsClockwiseOnScreen() {
        // y down: +x turned 90° clockwise points down (+y).
        #expect(Self.close(ProjectiveTransform.rotation(degrees: 90).apply(Point(x: 1, y: 0)), Point(x: 0, y: 1)))
        let p = ProjectiveTransform.rotation(degrees: 30).apply(Point(x: 10, y: 0))
        #expect(Self.close(p, Point(x: 10 * 0.8660254037844386, y: 5)))
    }

    @Test func inverseUndoesAndProductComposes() async {
        let angles = Gen.double(in: -720...720), coordinates = Gen.double(in: -500...500)
        await propertyCheck(count: 300, input: angles, angles, coordinates, coordinates) { a, b, x, y in
            let m = ProjectiveTransform.translation(x: 40, y: -7) * .spin(about: .y, degrees: b, distance: 5000) * .rotation(degrees: a)
            let p = Point(x: x, y: y)
            let q = m.applyHomogeneous(p)
            guard q.weight > 0.05, let inverse = m.inverse else { return }
            #expect(Self.close(inverse.apply(q.point), p, 1e-6))
            let stepwise = ProjectiveTransform.translation(x: 40, y: -7).apply(ProjectiveTransform.spin(about: .y, degrees: b, distance: 5000)
                .apply(ProjectiveTransform.rotation(degrees: a).apply(p)))
            #expect(Self.close(stepwise, q.point, 1e-6))
        }
    }

    @Test func aSpinAboutYFollowsCoreAnimationsPerspective() throws {
        // m34 = -1/500: at 45° the edge at x = +50 recedes, the edge at -50 comes closer.
        let m = ProjectiveTransform.spin(about: .y, degrees: 45, distance: 500)
        let s = 0.5.squareRoot()
        let far = m.apply(Point(x: 50, y: 50)), near = m.apply(Point(x: -50, y: 50))
        #expect(abs(far.y - 50 / (1 + 50 * s / 500)) < 1e-9 && abs(near.y - 50 / (1 - 50 * s / 500)) < 1e-9)
        #expect(ProjectiveTransform.spin(about: .y, degrees: 90, distance: 500).apply(Point(x: 50, y: 10)).x == 0)
        #expect(ProjectiveTransform.spin(about: .y, degrees: 180, distance: 500).apply(Point(x: 50, y: 10)) == Point(x: -50, y: 10))
        #expect(ProjectiveTransform.spin(about: .y, degrees: 90, distance: 500).inverse == nil)   // edge-on
        #expect(ProjectiveTransform.spin(about: .x, degrees: 180, distance: 500).apply(Point(x: 5, y: 10)) == Point(x: 5, y: -10))
    }

    @Test func aRotatedLayerTurnsAboutItsCentre() throws {
        var layer = OverlayLayer(content: .image(path: "x"), anchor: .center, margin: 0, timeRange: TimeRange(start: 0, duration: 10))
        layer.rotation = 90
        let m = layer.transform(contentSize: Size(width: 100, height: 40), renderSize: PixelSize(width: 400, height: 200), at: 1)
        #expect(Self.close(m.apply(Point(x: 50, y: 20)), Point(x: 200, y: 100)))   // the centre stays
        #expect(Self.close(m.apply(Point(x: 100, y: 20)), Point(x: 200, y: 150)))   // the right edge's middle turns down
        #expect(m.isAffine)
    }
}
