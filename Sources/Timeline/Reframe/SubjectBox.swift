/// One thing a detector found in one analysed picture, in that picture's coordinates
/// normalised to 0...1 (so boxes do not depend on the size the analysis decoded at).
public struct SubjectBox: Sendable, Hashable {
    /// Which detector found the box: a face, a whole person, or motion.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case face
        case person
        case motion
    }

    public var kind: Kind
    /// x, y, width, height as fractions of the picture's width and height.
    public var rect: Rect
    /// The detector's confidence (faces: neighbour count; people: SVM weight; motion: the
    /// fraction of the picture that moved).
    public var score: Double

    public init(kind: Kind, rect: Rect, score: Double) {
        self.kind = kind
        self.rect = rect
        self.score = score
    }

    public var centre: Point { Point(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2) }
    public var area: Double { rect.width * rect.height }
}
