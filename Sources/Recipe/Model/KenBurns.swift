import DropcutTimeline

extension Recipe {
    /// `ken_burns: { from: [0, 0, 100%, 100%], to: ["25%", "25%", "50%", "50%"] }`: the clip
    /// (or still) is shown going from the `from` crop to the `to` crop over its whole
    /// duration, each filling the output (scaled to cover it, centred). Rectangles are
    /// `[x, y, width, height]` in the upright source's pixels or % of its width and height.
    public struct KenBurns: Sendable, Hashable {
        public var from: [Length]
        public var to: [Length]
        public var location: SourceLocation

        public init(from: [Length], to: [Length], location: SourceLocation) {
            self.from = from
            self.to = to
            self.location = location
        }
    }
}
