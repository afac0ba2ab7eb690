import Foundation

/// Which region of one analysed picture the camera should keep in view: the subject of
/// `fit: smart`, chosen as an editor would — faces before people, people before what
/// moves; several kept together when they fit the window, else the one followed a
/// moment before, else the biggest and most central one (who is speaking is not known
/// from pictures alone), a moving one counting more the nearer the camera it stands.
public struct SubjectSelection: Sendable, Hashable {
    public var subject: SmartFit.Subject
    /// The crop window as fractions of the upright picture (1 on the axis it spans).
    public var window: Size

    public init(subject: SmartFit.Subject, window: Size) {
        self.subject = subject
        self.window = window
    }

    /// The region to keep in view among `boxes` (upright, normalised), or nil when there
    /// is nothing to follow. `near`: the centre of the region chosen a moment before — of
    /// several candidates that do not fit together, the one close to it is kept (the
    /// same subject, not whichever is biggest at this instant).
    public func region(among boxes: [SubjectBox], near: Point? = nil) -> Rect? {
        let faces = boxes.filter { $0.kind == .face }
        let people = boxes.filter { $0.kind == .person }
        let motion = boxes.filter { $0.kind == .motion }
        let candidates: [SubjectBox]
        switch subject {
        case .auto: candidates = !faces.isEmpty ? faces : !people.isEmpty ? people : motion
        case .faces: candidates = faces
        case .people: candidates = people
        case .motion: candidates = motion
        }
        guard let first = candidates.first else { return nil }
        var union = first.rect
        for box in candidates.dropFirst() { union = union.union(box.rect) }
        // Together when the group fits inside the window with a margin to spare.
        if union.width <= window.width * 0.9 && union.height <= window.height * 0.9 { return union }
        if let near, let same = candidates.min(by: { distance($0.centre, near) < distance($1.centre, near) }),
           distance(same.centre, near) <= Self.sameSubjectDistance(same) {
            return same.rect
        }
        return candidates.max { weight($0) < weight($1) }!.rect
    }

    /// How far a subject's centre may have moved since the last look and still be taken
    /// for the same: its own size, or a tenth of the picture.
    static func sameSubjectDistance(_ box: SubjectBox) -> Double {
        max(0.1, max(box.rect.width, box.rect.height))
    }

    func distance(_ a: Point, _ b: Point) -> Double { hypot(a.x - b.x, a.y - b.y) }

    /// Size first, then closeness to the picture's centre; what moves counts more the
    /// lower its foot is in the picture (nearer the camera, in the usual shot).
    private func weight(_ box: SubjectBox) -> Double {
        let c = box.centre
        let offCentre = abs(c.x - 0.5) + abs(c.y - 0.5)
        let near = box.kind == .motion ? 0.5 + box.rect.maxY : 1
        return box.area * (1.5 - offCentre) * near
    }
}

extension Rect {
    /// The smallest rectangle holding both.
    public func union(_ other: Rect) -> Rect {
        let x0 = Swift.min(x, other.x), y0 = Swift.min(y, other.y)
        return Rect(x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0, height: Swift.max(maxY, other.maxY) - y0)
    }
}
