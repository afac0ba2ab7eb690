/// Which region of one analysed picture the camera should keep in view: the subject of
/// `fit: smart`, chosen as an editor would — faces before people, people before what
/// moves; several faces kept together when they fit the window, else the biggest and
/// most central one (who is speaking is not known from pictures alone).
public struct SubjectSelection: Sendable, Hashable {
    public var subject: SmartFit.Subject
    /// The crop window as fractions of the upright picture (1 on the axis it spans).
    public var window: Size

    public init(subject: SmartFit.Subject, window: Size) {
        self.subject = subject
        self.window = window
    }

    /// The region to keep in view among `boxes` (upright, normalised), or nil when there
    /// is nothing to follow.
    public func region(among boxes: [SubjectBox]) -> Rect? {
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
        let main = candidates.max { weight($0) < weight($1) }!
        return main.rect
    }

    /// Size first, then closeness to the picture's centre.
    private func weight(_ box: SubjectBox) -> Double {
        let c = box.centre
        let offCentre = abs(c.x - 0.5) + abs(c.y - 0.5)
        return box.area * (1.5 - offCentre)
    }
}

extension Rect {
    /// The smallest rectangle holding both.
    public func union(_ other: Rect) -> Rect {
        let x0 = Swift.min(x, other.x), y0 = Swift.min(y, other.y)
        return Rect(x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0, height: Swift.max(maxY, other.maxY) - y0)
    }
}
