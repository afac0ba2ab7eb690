import Testing
import DropcutTimeline
import TestSupport

/// The smart render's plan: which output frames are copied groups of pictures.
@Suite struct SmartRenderPlanTests {
    typealias Frame = SmartRenderPlan.Frame

    /// A clip of 120 frames with an IDR picture every 30, shown from `offset` on.
    static func trimmed(from offset: Int, count: Int = 120) -> [Frame] { (offset..<count).map { .source($0) } }

    @Test func aCutBetweenKeyframesEncodesUpToTheNextIDRAndCopiesTheRest() {
        let plan = SmartRenderPlan(frames: Self.trimmed(from: 45), idrFrames: [0, 30, 60, 90], sourceFrames: 120)
        #expect(plan.pieces == [.encoded(output: 0..<15, reasons: [SmartRenderPlan.partialGroupReason]),
                                .copied(output: 15..<75, source: 60..<120)])
        #expect(plan.copiedFrames == 60)
    }

    @Test func anOutroIsEncodedAfterTheWholeClipCopied() {
        let frames = Self.trimmed(from: 0) + Array(repeating: Frame.changed("another clip is shown (outro.mp4)"), count: 90)
        let plan = SmartRenderPlan(frames: frames, idrFrames: [0, 30, 60, 90], sourceFrames: 120)
        #expect(plan.pieces == [.copied(output: 0..<120, source: 0..<120),
                                .encoded(output: 120..<210, reasons: ["another clip is shown (outro.mp4)"])])
    }

    @Test func anOverlayReachesOutToTheGroupsAroundIt() {
        var frames = Self.trimmed(from: 0)
        for i in 40..<50 { frames[i] = .changed("an overlay is drawn") }
        let plan = SmartRenderPlan(frames: frames, idrFrames: [0, 30, 60, 90], sourceFrames: 120)
        #expect(plan.pieces == [.copied(output: 0..<30, source: 0..<30),
                                .encoded(output: 30..<60, reasons: ["an overlay is drawn", SmartRenderPlan.partialGroupReason]),
                                .copied(output: 60..<120, source: 60..<120)])
    }

    /// An open GOP's recovery-point pictures are not IDR pictures: with only the first,
    /// the whole clip is one group.
    @Test func withOneIDRPictureOnlyTheWholeClipCanBeCopied() {
        #expect(SmartRenderPlan(frames: Self.trimmed(from: 10), idrFrames: [0], sourceFrames: 120).encodesAll)
        #expect(SmartRenderPlan(frames: Self.trimmed(from: 0), idrFrames: [0], sourceFrames: 120).pieces
                == [.copied(output: 0..<120, source: 0..<120)])
    }

    /// The same groups shown twice (a clip used twice) are copied twice, as two pieces.
    @Test func aGroupShownTwiceIsCopiedTwice() {
        let frames = Self.trimmed(from: 0, count: 60) + Self.trimmed(from: 0, count: 60)
        let plan = SmartRenderPlan(frames: frames, idrFrames: [0, 30, 60], sourceFrames: 90)
        #expect(plan.pieces == [.copied(output: 0..<60, source: 0..<60), .copied(output: 60..<120, source: 0..<60)])
    }

    /// Random timelines against the rule's properties: the pieces tile the output; a copied
    /// piece is whole groups, each frame the source frame it copies; no encoded run holds
    /// a whole group shown in order (it would have been copied).
    @Test func randomTimelinesKeepEveryProperty() {
        var rng = SplitMix64(state: 49)
        for _ in 0..<3000 {
            let sourceFrames = Int.random(in: 1...80, using: &rng)
            var idr = (0..<sourceFrames).filter { _ in Int.random(in: 0..<8, using: &rng) == 0 }
            if Bool.random(using: &rng) { idr.insert(0, at: 0) }
            idr = Array(Set(idr)).sorted()
            var frames: [Frame] = []
            while frames.count < 100 {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: frames += Array(repeating: .changed("x"), count: Int.random(in: 1...10, using: &rng))
                default:
                    let start = Int.random(in: 0..<sourceFrames, using: &rng)
                    let end = Int.random(in: start...sourceFrames, using: &rng)
                    frames += (start..<end).map { .source($0) }
                }
            }
            let plan = SmartRenderPlan(frames: frames, idrFrames: idr, sourceFrames: sourceFrames)
            var next = 0
            for piece in plan.pieces {
                #expect(piece.output.lowerBound == next && !piece.output.isEmpty)
                next = piece.output.upperBound
                switch piece {
                case let .copied(output, source):
                    #expect(idr.contains(source.lowerBound))
                    #expect(source.upperBound == sourceFrames || idr.contains(source.upperBound))
                    #expect(output.count == source.count)
                    for (i, n) in zip(output, source) { #expect(frames[i] == .source(n)) }
                case let .encoded(output, reasons):
                    #expect(!reasons.isEmpty)
                    for (k, start) in idr.enumerated() {
                        let end = k + 1 < idr.count ? idr[k + 1] : sourceFrames
                        for i in output where frames[i] == .source(start) && i + (end - start) <= output.upperBound {
                            let whole = (start..<end).enumerated().allSatisfy { frames[i + $0.offset] == .source($0.element) }
                            #expect(!whole, "a whole group at \(i) was encoded")
                        }
                    }
                }
            }
            #expect(next == frames.count)
        }
    }
}
