import Foundation

/// The subject `fit: smart` follows through one shot: of the candidates each analysed
/// picture offers (`SubjectSelection`), the one sequence that is best over the whole
/// shot — as heavy (big, central, near) as it can be, moving from picture to picture as
/// little as it can. A subject taken for another costs as much as the window widths the
/// jump would move it; so in a crowd the one walker the shot is about is kept, even
/// where another is bigger for a moment or the detector loses her for a picture.
///
/// Found exactly by dynamic programming over the shot (Viterbi): every candidate of a
/// picture keeps the best sequence ending in it. Work and memory grow with the pictures
/// times the candidates of two neighbours (at most 16 each).
package enum SubjectTrack {
    /// What one jump of a window width costs, in pictures' worth of a typical subject
    /// (the median over the shot of each picture's heaviest candidate).
    static let switchCost = 3.0
    /// A candidate counts at most this many typical subjects: one giant false region
    /// (a light switched on) cannot pull the sequence to itself.
    static let heaviest = 4.0

    /// The centre followed at each time of `pictures` (which must be in time order;
    /// those without a candidate are left out), for a window `window` (fractions of the
    /// picture).
    package static func centres(through pictures: [(time: Double, candidates: [SubjectSelection.Candidate])],
                               window: Size) -> [(time: Double, centre: Point)] {
        let seen = pictures.filter { !$0.candidates.isEmpty }
        guard !seen.isEmpty else { return [] }
        let tops = seen.map { $0.candidates.map(\.weight).max()! }.sorted()
        let typical = tops[tops.count / 2] > 0 ? tops[tops.count / 2] : 1
        let width = max(window.width, 1e-3), height = max(window.height, 1e-3)
        func gain(_ c: SubjectSelection.Candidate) -> Double { min(max(c.weight / typical, 0), heaviest) }

        // back[offsets[k] + j]: which candidate of picture k-1 the best sequence ending in
        // candidate j of picture k came from.
        var offsets: [Int] = [], back: [Int32] = []
        offsets.reserveCapacity(seen.count)
        var previous = seen[0].candidates.map(gain), current: [Double] = []
        offsets.append(0)
        back.append(contentsOf: repeatElement(-1, count: previous.count))
        for k in seen.indices.dropFirst() {
            let before = seen[k - 1].candidates, here = seen[k].candidates
            offsets.append(back.count)
            current.removeAll(keepingCapacity: true)
            for candidate in here {
                var best = -Double.infinity, from = 0
                for (i, earlier) in before.enumerated() {
                    let jump = abs(candidate.centre.x - earlier.centre.x) / width + abs(candidate.centre.y - earlier.centre.y) / height
                    let value = previous[i] - switchCost * jump
                    if value > best { best = value; from = i }
                }
                current.append(best + gain(candidate))
                back.append(Int32(from))
            }
            swap(&previous, &current)
        }
        // Back from the best end.
        var j = previous.indices.max { previous[$0] < previous[$1] }!
        var out = [(time: Double, centre: Point)](repeating: (0, Point(x: 0, y: 0)), count: seen.count)
        for k in stride(from: seen.count - 1, through: 0, by: -1) {
            out[k] = (seen[k].time, seen[k].candidates[j].centre)
            j = Int(back[offsets[k] + j])
        }
        return out
    }
}
