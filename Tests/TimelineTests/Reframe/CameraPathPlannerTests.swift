import Foundation
import PropertyBased
import Testing
@testable import DropcutTimeline

/// The camera path planner, exhaustively on made-up detections: still subjects give still
/// windows, moving ones are followed within bounds, cuts restart the path, nothing to
/// follow is the middle; and for any subject path, the window stays in the picture with
/// bounded speed and acceleration.
@Suite struct CameraPathPlannerTests {
    /// A 9:16 window of a 16:9 picture.
    static let window = Size(width: 0.31640625, height: 1)

    static func analysis(seconds: Double, cuts: [Double] = [], step: Double = 0.1,
                         faces: (Double) -> [Double]) -> SubjectAnalysis {
        let samples = stride(from: 0.0, to: seconds, by: step).map { t in
            SubjectAnalysis.Sample(time: t, boxes: faces(t).map {
                SubjectBox(kind: .face, rect: Rect(x: $0 - 0.02, y: 0.3, width: 0.04, height: 0.07), score: 5)
            })
        }
        return SubjectAnalysis(samples: samples, cuts: cuts, duration: seconds)
    }

    static func plan(_ analysis: SubjectAnalysis, smoothness: Double = 0.5, window: Size = window) -> CameraPath {
        CameraPathPlanner(window: window, smoothness: smoothness)
            .plan(analysis, selection: SubjectSelection(subject: .auto, window: window))
    }

    @Test(arguments: [0.0, 0.5, 1.0])
    func aStillSubjectGivesAStillWindowAroundIt(smoothness: Double) {
        // Jitter of a detector (±1 % of the width) does not move the window at all.
        let path = Self.plan(Self.analysis(seconds: 5) { t in [0.25 + 0.01 * sin(t * 17)] }, smoothness: smoothness)
        #expect(path.shots.count == 1 && path.shots[0].isStill)
        let x = path.centre(at: 2).x
        #expect(abs(x - 0.25) < 0.02)
    }

    @Test func nothingToFollowIsTheMiddle() {
        let path = Self.plan(Self.analysis(seconds: 4) { _ in [] })
        #expect(path.shots[0].isStill && path.centre(at: 1) == Point(x: 0.5, y: 0.5))
    }

    @Test func aSubjectNearTheEdgeKeepsTheWindowInThePicture() {
        let path = Self.plan(Self.analysis(seconds: 3) { _ in [0.02] })
        #expect(abs(path.window(at: 1).x) < 1e-12)
        let right = Self.plan(Self.analysis(seconds: 3) { _ in [0.99] })
        #expect(abs(right.window(at: 1).maxX - 1) < 1e-12)
    }

    @Test func oneFalseDetectionMovesNothing() {
        let path = Self.plan(Self.analysis(seconds: 4) { t in abs(t - 2) < 0.05 ? [0.9] : [0.3] })
        #expect(path.shots[0].isStill)
    }

    /// Walks from 0.15 to 0.85 between 1 and 3.5 s: followed, the face always in the
    /// window, the window still before the walk and once settled after it.
    @Test func aWalkIsFollowed() {
        func x(_ t: Double) -> Double { t < 1 ? 0.15 : t < 3.5 ? 0.15 + (t - 1) / 2.5 * 0.7 : 0.85 }
        let path = Self.plan(Self.analysis(seconds: 6) { [x($0)] })
        for frame in 0..<180 {
            let t = Double(frame) / 30
            let w = path.window(at: t)
            #expect(x(t) >= w.x && x(t) <= w.maxX, "at \(t): face \(x(t)), window \(w.x)...\(w.maxX)")
        }
        for t in Array(stride(from: 0.0, to: 0.95, by: 1.0 / 30)) + Array(stride(from: 4.8, to: 5.9, by: 1.0 / 30)) {
            #expect(abs(path.centre(at: t + 1.0 / 30).x - path.centre(at: t).x) * 1920 <= 1, "at \(t)")
        }
        #expect(!path.shots[0].isStill)
    }

    @Test func aCutRestartsThePathWithoutAMoveAcrossIt() {
        let path = Self.plan(Self.analysis(seconds: 6, cuts: [3]) { t in [t < 3 ? 0.2 : 0.8] })
        #expect(path.shots.count == 2)
        #expect(path.shots[0].range == 0..<3 && path.shots[1].range == 3..<6)
        #expect(path.shots.allSatisfy { $0.isStill })
        #expect(abs(path.centre(at: 2.99).x - 0.2) < 0.02 && abs(path.centre(at: 3).x - 0.8) < 0.02)
        #expect(path.shots[0].keyframes.allSatisfy { $0.time < 3 })
    }

    @Test func aWindowSpanningAnAxisStaysCentredOnIt() {
        // A 9:16 window of a 9:16 picture spans both axes: nothing moves.
        let path = Self.plan(Self.analysis(seconds: 3) { t in [0.1 + t / 4] }, window: Size(width: 1, height: 1))
        #expect(path.shots[0].isStill && path.centre(at: 2) == Point(x: 0.5, y: 0.5))
    }

    /// Any subject path, any window, any smoothness: the window never leaves the picture,
    /// moves no faster than its speed bound, and changes speed no faster than its
    /// acceleration bound (twice it where it comes to rest on the spot).
    @Test func boundsHoldForAnySubjectPath() async {
        let input = zip(Gen.double(in: 0.1...0.95), Gen.double(in: 0...1), Gen.uint64(in: 0...UInt64.max))
        await propertyCheck(count: 200, input: input) { width, smoothness, seed in
            var state = seed
            func random() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            var x = random(), points: [Double?] = []
            for _ in 0..<80 {
                x = min(1, max(0, x + (random() - 0.5) * 0.2))
                points.append(random() < 0.15 ? nil : x)
            }
            let seen = points
            let window = Size(width: width, height: 1)
            let planner = CameraPathPlanner(window: window, smoothness: smoothness)
            let analysis = SubjectAnalysis(samples: seen.enumerated().map { i, x in
                SubjectAnalysis.Sample(time: Double(i) * 0.1, boxes: x.map { [SubjectBox(kind: .face, rect: Rect(x: $0, y: 0.4, width: 0, height: 0.1), score: 1)] } ?? [])
            }, cuts: [], duration: 8)
            let path = planner.plan(analysis, selection: SubjectSelection(subject: .auto, window: window))
            let speed = window.width * (2.0 - 1.2 * smoothness), acceleration = speed / (0.3 + 0.5 * smoothness)
            var previous: (x: Double, v: Double)?
            for k in 0..<80 {
                let t = Double(k) * 0.1
                let c = path.centre(at: t).x
                #expect(c >= width / 2 - 1e-9 && c <= 1 - width / 2 + 1e-9)
                if let p = previous {
                    let v = (c - p.x) / 0.1
                    #expect(abs(v) <= speed + 1e-9, "speed \(v) > \(speed)")
                    #expect(abs(v - p.v) <= 2 * acceleration * 0.1 + 1e-9, "acceleration \((v - p.v) / 0.1) > \(acceleration)")
                    previous = (c, v)
                } else {
                    previous = (c, 0)
                }
            }
        }
    }
}

@Suite struct SubjectSelectionTests {
    static func box(_ kind: SubjectBox.Kind, x: Double, width: Double = 0.05) -> SubjectBox {
        SubjectBox(kind: kind, rect: Rect(x: x, y: 0.3, width: width, height: 0.1), score: 1)
    }

    /// Of boxes the same size, a face weighs most (even off to the side), then a person,
    /// then what moves; each subject but `auto` offers its own kind only.
    @Test func facesBeforePeopleBeforeMotion() {
        let window = Size(width: 0.3, height: 1)
        let selection = SubjectSelection(subject: .auto, window: window)
        let all = [Self.box(.motion, x: 0.8), Self.box(.person, x: 0.5), Self.box(.face, x: 0.1)]
        #expect(selection.candidates(among: all).map(\.rect.x) == [0.1, 0.5, 0.8])
        #expect(selection.candidates(among: Array(all.prefix(2))).map(\.rect.x) == [0.5, 0.8])
        #expect(selection.candidates(among: [all[0]]).map(\.rect.x) == [0.8])
        #expect(selection.candidates(among: []).isEmpty)
        #expect(SubjectSelection(subject: .people, window: window).candidates(among: all).map(\.rect.x) == [0.5])
        #expect(SubjectSelection(subject: .motion, window: window).candidates(among: all).map(\.rect.x) == [0.8])
        #expect(SubjectSelection(subject: .faces, window: window).candidates(among: [all[0]]).isEmpty)
    }

    @Test func facesThatFitAreKeptTogetherElseEachHeaviestFirst() {
        let selection = SubjectSelection(subject: .auto, window: Size(width: 0.3, height: 1))
        let together = selection.candidates(among: [Self.box(.face, x: 0.3), Self.box(.face, x: 0.45)])
        #expect(together.count == 1 && abs(together[0].rect.x - 0.3) < 1e-12 && abs(together[0].rect.maxX - 0.5) < 1e-12)
        // 0.1 to 0.85 cannot fit a window 0.3 wide: each, the larger first.
        let apart = selection.candidates(among: [Self.box(.face, x: 0.1), Self.box(.face, x: 0.8, width: 0.08)])
        #expect(apart.map(\.rect.x) == [0.8, 0.1])
        // A crowd offers its heaviest sixteen.
        let crowd = selection.candidates(among: (0..<30).map { Self.box(.face, x: Double($0) / 30, width: 0.01 + Double($0) / 3000) })
        #expect(crowd.count == 16 && zip(crowd, crowd.dropFirst()).allSatisfy { $0.weight >= $1.weight })
    }
}

/// The subject followed through a shot: the heaviest sequence that jumps least.
@Suite struct SubjectTrackTests {
    static let window = Size(width: 0.3, height: 1)

    static func candidate(x: Double, y: Double = 0.5, weight: Double) -> SubjectSelection.Candidate {
        SubjectSelection.Candidate(rect: Rect(x: x - 0.02, y: y - 0.05, width: 0.04, height: 0.1), weight: weight)
    }

    /// A walker crossing left to right; another, twice her size, passes once for a
    /// picture and again for three, far away: she is kept throughout.
    @Test func theWalkerIsKeptWhenAnotherIsBiggerForAMoment() {
        let pictures = (0..<50).map { k -> (time: Double, candidates: [SubjectSelection.Candidate]) in
            let t = Double(k) / 10
            var candidates = [Self.candidate(x: 0.2 + 0.012 * Double(k), y: 0.7, weight: 1)]
            if k == 10 || (30...32).contains(k) { candidates.append(Self.candidate(x: 0.9, y: 0.3, weight: 2)) }
            return (t, candidates.shuffled())
        }
        let centres = SubjectTrack.centres(through: pictures, window: Self.window)
        #expect(centres.count == 50)
        for (k, c) in centres.enumerated() { #expect(abs(c.centre.x - (0.2 + 0.012 * Double(k))) < 1e-9, "picture \(k)") }
    }

    /// One subject leaves and another, far away, stays: the sequence changes over once,
    /// where the first one is gone.
    @Test func whenTheSubjectLeavesTheOtherIsTaken() {
        let pictures = (0..<40).map { k -> (time: Double, candidates: [SubjectSelection.Candidate]) in
            var candidates = [Self.candidate(x: 0.8, weight: 0.6)]
            if k < 20 { candidates.append(Self.candidate(x: 0.2, weight: 1)) }
            return (Double(k) / 10, candidates)
        }
        let xs = SubjectTrack.centres(through: pictures, window: Self.window).map(\.centre.x)
        #expect(xs == Array(repeating: 0.2, count: 20) + Array(repeating: 0.8, count: 20))
    }

    /// A subject far bigger all along wins over the one that was there first.
    @Test func aBiggerSubjectAllAlongWins() {
        let pictures = (0..<40).map { k -> (time: Double, candidates: [SubjectSelection.Candidate]) in
            (Double(k) / 10, [Self.candidate(x: 0.2, weight: 1)] + (k >= 5 ? [Self.candidate(x: 0.8, weight: 3)] : []))
        }
        let xs = SubjectTrack.centres(through: pictures, window: Self.window).map(\.centre.x)
        #expect(xs.suffix(30).allSatisfy { $0 == 0.8 })
    }

    /// The sequence found is the best one: on small random shots, no sequence through
    /// the candidates scores more (checked against all of them).
    @Test func theSequenceFoundIsTheBestOfAll() async {
        let input = zip(Gen.int(in: 1...6), Gen.uint64(in: 0...UInt64.max))
        await propertyCheck(count: 300, input: input) { count, seed in
            var state = seed
            func random() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            let pictures = (0..<count).map { k -> (time: Double, candidates: [SubjectSelection.Candidate]) in
                (Double(k) / 10, (0..<(1 + Int(random() * 3))).map { _ in Self.candidate(x: random(), y: random(), weight: random() * 2) })
            }
            let tops = pictures.map { $0.candidates.map(\.weight).max()! }.sorted()
            let typical = tops[tops.count / 2] > 0 ? tops[tops.count / 2] : 1
            func score(_ choice: [Int]) -> Double {
                var total = 0.0
                for (k, j) in choice.enumerated() {
                    let c = pictures[k].candidates[j]
                    total += min(c.weight / typical, SubjectTrack.heaviest)
                    if k > 0 {
                        let b = pictures[k - 1].candidates[choice[k - 1]]
                        total -= SubjectTrack.switchCost * (abs(c.centre.x - b.centre.x) / Self.window.width + abs(c.centre.y - b.centre.y) / Self.window.height)
                    }
                }
                return total
            }
            var best = -Double.infinity
            func search(_ prefix: [Int]) {
                if prefix.count == count { best = max(best, score(prefix)); return }
                for j in pictures[prefix.count].candidates.indices { search(prefix + [j]) }
            }
            search([])
            let found = SubjectTrack.centres(through: pictures, window: Self.window)
            let choice = found.enumerated().map { k, f in pictures[k].candidates.firstIndex { $0.centre == f.centre }! }
            #expect(abs(score(choice) - best) < 1e-9, "found \(score(choice)), best \(best)")
        }
    }

    @Test func picturesWithoutCandidatesAreLeftOut() {
        let pictures: [(time: Double, candidates: [SubjectSelection.Candidate])] =
            [(0, []), (0.1, [Self.candidate(x: 0.4, weight: 1)]), (0.2, []), (0.3, [Self.candidate(x: 0.45, weight: 1)])]
        #expect(SubjectTrack.centres(through: pictures, window: Self.window).map(\.time) == [0.1, 0.3])
        #expect(SubjectTrack.centres(through: [], window: Self.window).isEmpty)
    }
}

@Suite struct ShotCutDetectorTests {
    static func histogram(_ peak: Int) -> [Double] {
        (0..<32).map { $0 == peak ? 0.7 : 0.3 / 31 }
    }

    @Test func aJumpIsACutADriftIsNot() {
        var detector = ShotCutDetector()
        var cuts: [Double] = []
        for frame in 0..<150 {
            let t = Double(frame) / 30
            // Drifts a bin every second (a pan), jumps at 3 s (a cut).
            var h = Self.histogram(frame < 90 ? 10 : 25)
            h[frame / 30 % 32] += 0.01
            let sum = h.reduce(0, +)
            if detector.isCut(histogram: h.map { $0 / sum }, at: t) { cuts.append(t) }
        }
        #expect(cuts == [3])
    }

    /// Two shots of one dim room: the cut moves the histogram by 0.22, a sixth of a
    /// busy shot's change from picture to picture, but ten times the still shot's own.
    /// A busy shot (every picture 0.6 from the last) has no cut in it.
    @Test func aCutBetweenLikeShotsIsFoundABusyShotHasNone() {
        var detector = ShotCutDetector()
        var cuts: [Double] = []
        for frame in 0..<120 {
            let t = Double(frame) / 24
            var h = Self.histogram(5)
            // The still shot's own flicker: about 0.02 a picture.
            h[5] -= frame % 2 == 0 ? 0.01 : 0
            h[6] += frame % 2 == 0 ? 0.01 : 0
            if frame >= 60 { h[5] -= 0.11; h[7] += 0.11 }
            if detector.isCut(histogram: h, at: t) { cuts.append(t) }
        }
        #expect(cuts == [2.5])
        var busy = ShotCutDetector()
        var busyCuts = 0
        for frame in 0..<120 {
            var h = Self.histogram(3)
            if frame % 2 == 1 { h[3] -= 0.3; h[4] += 0.3 }
            if busy.isCut(histogram: h, at: Double(frame) / 24) { busyCuts += 1 }
        }
        #expect(busyCuts == 0)
    }

    @Test func aFlashDoesNotMakeTwoCuts() {
        var detector = ShotCutDetector()
        var cuts: [Double] = []
        for frame in 0..<60 {
            let t = Double(frame) / 30
            let h = Self.histogram(frame == 30 ? 31 : 5)
            if detector.isCut(histogram: h, at: t) { cuts.append(t) }
        }
        // The flash's first picture is a cut; back 1/30 s later is within the shortest shot.
        #expect(cuts == [1])
    }
}

@Suite struct SubjectAnalysisTests {
    @Test func boxesTurnUprightWithTheirClip() {
        // A portrait phone clip stored 1920x1080, shown turned a quarter clockwise: a box
        // at the stored picture's top left is at the upright picture's top right.
        let stored = PixelSize(width: 1920, height: 1080)
        let turn = AffineTransform.orientation(quarterTurns: 1, naturalSize: stored)
        let analysis = SubjectAnalysis(samples: [.init(time: 0, boxes: [SubjectBox(kind: .face, rect: Rect(x: 0, y: 0, width: 0.1, height: 0.2), score: 1)])],
                                       cuts: [], duration: 1)
        let r = analysis.upright(through: turn, naturalSize: stored).samples[0].boxes[0].rect
        #expect(abs(r.x - 0.8) < 1e-9 && abs(r.y) < 1e-9 && abs(r.width - 0.2) < 1e-9 && abs(r.height - 0.1) < 1e-9, "\(r)")
    }

    @Test func shotsCoverTheClip() {
        let analysis = SubjectAnalysis(samples: [], cuts: [0, 2, 2, 5, 9], duration: 6)
        #expect(analysis.shots == [0..<2, 2..<5, 5..<6])
        #expect(SubjectAnalysis(samples: [], cuts: [], duration: 0).shots == [0..<0])
    }

    @Test func thePlanSaysWhatItDid() throws {
        let analysis = CameraPathPlannerTests.analysis(seconds: 6, cuts: [3]) { t in t < 3 ? [0.2] : [] }
        let path = CameraPathPlannerTests.plan(analysis)
        let reframing = ClipReframing(path: "/in/clip.mov", fit: SmartFit(), pictureSize: Size(width: 1920, height: 1080),
                                      analysis: analysis, cameraPath: path)
        #expect(reframing.lines[0] == "fit: smart clip.mov (subject auto, smoothness 0.50): window 608x1080 of 1920x1080, 2 shots")
        #expect(reframing.lines[1].hasPrefix("  shot 0.000–3.000 s: still, centre (384, 540) px; face in 30 of 30 pictures"))
        #expect(reframing.lines[2] == "  shot 3.000–6.000 s: still, centre (960, 540) px; nothing to follow: centred")
        let svg = CameraPathSVG.render(reframing)
        #expect(svg.components(separatedBy: "<polygon class=\"window\"").count == 3)
        #expect(svg.components(separatedBy: "<line class=\"cut\"").count == 2)
        #expect(svg.components(separatedBy: "<circle class=\"face\"").count == 31)
        let stacked = CameraPathSVG.stacked([svg, svg])
        let elements = try SVGElements.parse(stacked)   // well-formed: the nested documents keep their own
        #expect(elements.filter { $0.name == "svg" }.map { $0.attributes["y"] } == [nil, "0.0", "270.0"])
        #expect(stacked.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="880.0" height="540.0">"#))
    }
}
