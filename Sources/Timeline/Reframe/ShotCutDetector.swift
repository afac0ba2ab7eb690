/// Finds the cuts between shots in a stream of pictures from their luma histograms:
/// a cut is a picture whose histogram is far from the one before it (L1 distance, 0...2)
/// — a pan or someone walking changes a histogram a little from picture to picture, a
/// cut changes it at once. How far is far depends on the shot: a cut between two shots
/// of the same dim room changes the analysis picture's histogram less (0.22–0.33 in
/// OpenCV's Megamind.avi) than a cut to another place, but still many times more than
/// the pictures of either shot change it from one to the next (0.02–0.05 there); and a
/// shot of confetti changes it by 0.6 every picture without a cut. So a cut is a distance
/// over an absolute floor and either many times the recent ones or `threshold` more than
/// them (after PySceneDetect's adaptive detector). Streaming: the previous histogram and
/// a running mean are kept.
package struct ShotCutDetector: Sendable {
    /// How much farther than the recent distances' mean a cut's distance is, at least
    /// (or `ratio` times as far).
    package var threshold: Double
    /// The least distance that can be a cut, however still the shot was before it.
    package var floor: Double
    /// How many times the recent distances' mean a cut's distance is, at least.
    package var ratio: Double
    /// The shortest shot, seconds: a flash or a fast whip does not make two cuts.
    package var minimumShot: Double
    private var previous: [Double] = []
    private var lastCut = 0.0
    /// The mean of the recent distances (an exponential mean over about ten pictures);
    /// nil before the second picture.
    private var recent: Double?

    package init(threshold: Double = 0.5, floor: Double = 0.15, ratio: Double = 3.5, minimumShot: Double = 0.5) {
        self.threshold = threshold
        self.floor = floor
        self.ratio = ratio
        self.minimumShot = minimumShot
    }

    /// Feeds the histogram (bins summing to 1) of the picture at `time`; true when a new
    /// shot starts with it.
    package mutating func isCut(histogram: [Double], at time: Double) -> Bool {
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
        guard distance.isFinite else { return false }
        let before = recent ?? distance
        recent = before + (distance - before) * 0.1
        let far = distance > floor && (distance > ratio * before || distance > before + threshold)
        guard far, time - lastCut >= minimumShot else { return false }
        lastCut = time
        return true
    }
}
