import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `ramp:` speed keyframes become stepped speed ranges, as iPhone slow-motion tracks are.
@Suite struct SpeedRampRecipeTests {
    @Test func rampsExpandIntoShortStepsOnOneTimescale() throws {
        let recipe = try loadRecipe("""
        version: 1
        clips:
          - ramp: [ {at: 2.4, rate: 1}, {at: 2.9, rate: 0.25}, {at: 13.3, rate: 0.25}, {at: 13.8, rate: 1} ]
        """).get()
        let speed = recipe.clips[0].speed
        let ranges = speed.map { range -> (MediaTime, MediaTime, Double) in
            guard case let .seconds(start) = range.range.start, case let .seconds(end) = range.range.end else { return (.zero, .zero, 0) }
            return (start, end, range.rate.seconds)
        }
        // Ten 50 ms steps down, the hold, ten steps up; contiguous from 2.4 to 13.8.
        #expect(ranges.count == 21)
        #expect(ranges.first?.0 == MediaTime(exactly: "2.4") && ranges.last?.1 == MediaTime(exactly: "13.8"))
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.1 == b.0) }
        for range in ranges where range.1 - range.0 != MediaTime(exactly: "10.4")! {
            #expect(range.1 - range.0 <= MediaTime(value: 1, timescale: 20))
        }
        let down = ranges[0..<10].map(\.2), up = ranges[11...].map(\.2)
        #expect(down == down.sorted(by: >) && up == up.sorted() && down.first! < 1 && down.last! > 0.25)
        #expect(ranges[10].2 == 0.25 && ranges[10].1 - ranges[10].0 == MediaTime(exactly: "10.4"))
        // Every step's output length is a whole number of 1/48000 s: no rounding piles up.
        for range in speed {
            let output = CompositionBuilder.scaled(range.range.start == range.range.end ? .zero : {
                guard case let .seconds(s) = range.range.start, case let .seconds(e) = range.range.end else { return .zero }
                return e - s
            }(), by: range.rate)
            #expect(!output.hasBeenRounded && output.convertScale(48000).ticks(in: 48000).map { MediaTime(value: $0, timescale: 48000) == output } == true)
        }
    }

    @Test func badRampsAreReportedWhereTheyAre() {
        #expect(problems("""
        version: 1
        clips:
          - ramp: [ {at: 2, rate: 1}, {at: 1, rate: 0.5} ]
          - ramp: [ {at: 1, rate: 40}, {at: 2} ]
          - ramp: [ {at: 1, rate: 0.5} ]
        """) == [
            "3:36: clips[0].ramp[1].at 1.000s must come after the previous keyframe (2.000s)",
            "4:27: clips[1].ramp[0].rate must be between 0.05 and 16 (got 40)",
            "4:32: clips[1].ramp[1] needs at: TIME and rate: NUMBER",
            "5:11: clips[2].ramp needs at least two keyframes",
        ])
    }
}
