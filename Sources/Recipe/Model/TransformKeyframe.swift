import DropcutTimeline

extension Recipe {
    /// `transform: [ { at: 0, scale: 1 }, { at: 4, scale: 1.2, rotate: 10, move: [0, "-5%"] } ]`:
    /// one keyframe of a clip's own motion on top of its placement — about the output's
    /// centre, scaled, turned clockwise by `rotate` degrees, then moved by `move` (output
    /// pixels, or % of the output's width and height). Between keyframes the layer
    /// transform ramps component-wise on the matrix, as AVFoundation's transform ramps do.
    public struct TransformKeyframe: Sendable, Hashable {
        /// Seconds from the clip's start on the output timeline.
        public var at: MediaTime
        public var scale: Double = 1
        /// Degrees, clockwise on screen.
        public var rotate: Double = 0
        public var moveX: SignedLength = .pixels(0)
        public var moveY: SignedLength = .pixels(0)
        public var location: SourceLocation

        public init(at: MediaTime, location: SourceLocation) {
            self.at = at
            self.location = location
        }
    }
}
