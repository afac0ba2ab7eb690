/// Finds the cuts between shots in a stream of pictures from their luma histograms:
/// a cut is a picture whose histogram is far from the one before it (L1 distance, 0...2)
/// — a pan or someone walking changes a histogram a little from picture to picture, a
/// cut changes it at once. Streaming: only the previous histogram is kept.
public struct ShotCutDetector: Sendable {
    /// L1 distance between consecutive histograms above which a cut is declared.
    public var threshold: Double
    /// The shortest shot, seconds: a flash or a fast whip does not make two cuts.
    public var minimumShot: Double
    private var previous: [Double] = []
    private var lastCut = 0.0

    public init(threshold: Double = 0.5, minimumShot: Double = 0.5) {
        self.threshold = threshold
        self.minimumShot = minimumShot
    }

    /// Feeds the histogram (bins summing to 1) of the picture at `time`; true when a new
    /// shot starts with it.
    public mutating func isCut(histogram: [Double], at time: Double) -> Bool {
        guard previous.count == histogram.count, !histogram.isEmpty else {
            previous = histogram
            return false
        }
        var distance = 0.0
        for i in histogram.indices {
            distance += abs(histogram[i] - previous[i])
            // Copied in place: the caller's array is refilled every picture, and keeping
            // it would copy it then (an allocation a picture).
            previous[i] = histogram[i]
        }
        guard distance > threshold, time - lastCut >= minimumShot else { return false }
        lastCut = time
        return true
    }
}
