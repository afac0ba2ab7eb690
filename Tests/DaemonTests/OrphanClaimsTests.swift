import Testing
@testable import DropcutDaemon

/// `OrphanClaims`: a claim folder is an orphan only once nothing has accounted for it
/// during a whole timeout, counted from when it was first seen so.
@Suite struct OrphanClaimsTests {
    @Test func onlyAFolderUnaccountedForAWholeTimeoutIsAnOrphan() {
        var orphans = OrphanClaims(timeout: .seconds(3))
        let t = ContinuousClock.now
        #expect(orphans.observe(unaccounted: ["a", "b"], at: t) == [])
        #expect(orphans.observe(unaccounted: ["a", "b", "c"], at: t + .seconds(2)) == [])
        // b is accounted for once (its holder put its row back): it starts again.
        #expect(orphans.observe(unaccounted: ["a", "c"], at: t + .milliseconds(2900)) == [])
        #expect(orphans.observe(unaccounted: ["a", "b", "c"], at: t + .seconds(3)) == ["a"])
        #expect(orphans.observe(unaccounted: ["a", "b", "c"], at: t + .seconds(5)) == ["a", "c"], "oldest first")
        orphans.forget("a")
        #expect(orphans.observe(unaccounted: ["a", "b", "c"], at: t + .seconds(6)) == ["c", "b"], "c since 2 s, b since 3 s; a counted again")
        #expect(orphans.observe(unaccounted: [], at: t + .seconds(7)) == [])
        #expect(orphans.observe(unaccounted: ["b"], at: t + .seconds(8)) == [], "gone, then back: counted from now")
    }

    /// Every sequence of three looks at one folder, each accounted for or not, one second
    /// apart, with a timeout of two seconds: an orphan exactly when the last three were
    /// all unaccounted for.
    @Test func everySequenceOfLooksIsJudgedByItsLastUnbrokenRun() {
        let t = ContinuousClock.now
        for pattern in 0..<8 {
            var orphans = OrphanClaims(timeout: .seconds(2))
            var result: [String] = []
            for step in 0..<3 {
                let unaccounted = pattern & (1 << step) != 0
                result = orphans.observe(unaccounted: unaccounted ? ["x"] : [], at: t + .seconds(step))
            }
            #expect(result == (pattern == 7 ? ["x"] : []), "pattern \(pattern)")
        }
    }
}
