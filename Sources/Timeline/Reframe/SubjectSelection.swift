import Foundation

/// What in one analysed picture could be the subject of `fit: smart`, as an editor would
/// see it: faces, people and what moves, each weighed by size and closeness to the
/// middle — a face far more than its size, a moving region more the nearer the camera
/// it stands; several of a kind kept together when they fit the window (one candidate,
/// their union).
///
/// Which candidate is followed is decided over the whole shot (`SubjectTrack`), not
/// picture by picture.
package struct SubjectSelection: Sendable, Hashable {
    /// A region that could be followed in one picture, and how much it looks like the
    /// subject (bigger: more).
    package struct Candidate: Sendable, Hashable {
        package var rect: Rect
        package var weight: Double
        package init(rect: Rect, weight: Double) {
            self.rect = rect
            self.weight = weight
        }
        package var centre: Point { Point(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2) }
    }

    package var subject: SmartFit.Subject
    /// The crop window as fractions of the upright picture (1 on the axis it spans).
    package var window: Size
    /// The most candidates a picture offers (the heaviest): 30 faces in a crowd are
    /// weighed, not all paired with the next picture's.
    static let maximumCandidates = 16

    package init(subject: SmartFit.Subject, window: Size) {
        self.subject = subject
        self.window = window
    }

    /// The candidates among `boxes` (upright, normalised), heaviest first; none when
    /// there is nothing to follow. Under `auto`, every kind is offered, a face weighing
    /// as much as a body ten times its size (a face is the person; and a detector that
    /// misses a face for a second still sees the body move); otherwise only the kind
    /// asked for.
    package func candidates(among boxes: [SubjectBox]) -> [Candidate] {
        var weighed: [Candidate] = []
        for kind in SubjectBox.Kind.allCases where subject.follows(kind) {
            let found = boxes.filter { $0.kind == kind }
            guard let first = found.first else { continue }
            var union = first.rect
            for box in found.dropFirst() { union = union.union(box.rect) }
            // Together when the group fits inside the window with a margin to spare.
            if union.width <= window.width * 0.9 && union.height <= window.height * 0.9 {
                weighed.append(Candidate(rect: union, weight: found.map(weight).reduce(0, +)))
            } else {
                weighed += found.map { Candidate(rect: $0.rect, weight: weight($0)) }
            }
        }
        weighed.sort { $0.weight > $1.weight }
        return Array(weighed.prefix(Self.maximumCandidates))
    }

    /// Size first, then closeness to the picture's centre; a face counts ten times its
    /// size, a moving region more the lower its foot is in the picture (nearer the
    /// camera, in the usual shot).
    func weight(_ box: SubjectBox) -> Double {
        let c = box.centre
        let offCentre = abs(c.x - 0.5) + abs(c.y - 0.5)
        let kind: Double
        switch box.kind {
        case .face: kind = 10
        case .person: kind = 1
        case .motion: kind = 0.5 + min(max(box.rect.maxY, 0), 1)
        }
        return max(0, box.area) * (1.5 - min(offCentre, 1)) * kind
    }
}

extension Rect {
    /// The smallest rectangle holding both.
    package func union(_ other: Rect) -> Rect {
        let x0 = Swift.min(x, other.x), y0 = Swift.min(y, other.y)
        return Rect(x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0, height: Swift.max(maxY, other.maxY) - y0)
    }
}
