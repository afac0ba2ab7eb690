/// `fit: smart`'s options (`smart: { subject, smoothness }`): what the camera follows and
/// how calmly it moves.
public struct SmartFit: Sendable, Hashable {
    /// What the reframing follows.
    public enum Subject: String, Sendable, Hashable, CaseIterable {
        /// Faces, people and what moves, a face weighing most.
        case auto
        case faces
        case people
        case motion

        /// Whether boxes of `kind` can be this subject.
        public func follows(_ kind: SubjectBox.Kind) -> Bool {
            switch self {
            case .auto: true
            case .faces: kind == .face
            case .people: kind == .person
            case .motion: kind == .motion
            }
        }
    }

    public var subject: Subject
    /// 0...1: 0 follows closely (small dead zone, quick moves), 1 holds and glides.
    public var smoothness: Double

    public static let smoothnessRange: ClosedRange<Double> = 0...1

    public init(subject: Subject = .auto, smoothness: Double = 0.5) {
        self.subject = subject
        self.smoothness = min(max(smoothness, 0), 1)
    }
}
