import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutMediaIO

/// `IDRPictureIDRewriter` reads packets of any copied source: x264's IDR access units
/// (tiny pictures, so 12,000 cases take a second or two) with bytes changed — in the
/// slice header and anywhere — cut short, or replaced by random bytes, and read with
/// damaged parameter sets. None traps; what it rewrites reads back with the new id and
/// every other header field as it was.
@Suite struct IDRPictureIDRewriterFuzzTests {
    @Test func mutatedAccessUnitsAreReadOrRefusedNeverTrapping() throws {
        let dir = try TemporaryDirectory()
        var seeds: [(units: [[UInt8]], configuration: H264DecoderConfiguration)] = []
        for kind in [IDRPictureIDRewriterTests.Kind.cabac, .cavlc, .baseline, .cavlcSlices, .interlaced] {
            let stream = try IDRPictureIDRewriterTests.stream(try IDRPictureIDRewriterTests.clip(dir, kind, size: "32x32"))
            seeds.append((stream.units, stream.configuration))
        }
        var rng = SplitMix64(state: 0x1D2)
        var read = 0, rewritten = 0
        for round in 0..<12_000 {
            let seed = seeds[round % seeds.count]
            var configuration = seed.configuration
            var unit = seed.units[Int.random(in: 0..<seed.units.count, using: &rng)]
            switch round % 6 {
            case 0, 1:   // the length and the slice header
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    unit[Int.random(in: 0..<min(24, unit.count), using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 2:      // anywhere
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    unit[Int.random(in: 0..<unit.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 3:      // cut short, its length left as it was or made to fit
                unit = Array(unit.prefix(Int.random(in: 0...unit.count, using: &rng)))
                if unit.count > 4, Bool.random(using: &rng) {
                    let length = unit.count - 4
                    unit.replaceSubrange(0..<4, with: [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)])
                }
            case 4:      // random bytes behind a length that fits, as an IDR slice
                let body = [0x65] + (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                unit = [0, 0, 0, UInt8(body.count)] + body
            default:     // damaged parameter sets
                var sets = configuration.sequenceParameterSets + configuration.pictureParameterSets
                let k = Int.random(in: 0..<sets.count, using: &rng)
                sets[k][Int.random(in: 1..<sets[k].count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                configuration.sequenceParameterSets = Array(sets.prefix(configuration.sequenceParameterSets.count))
                configuration.pictureParameterSets = Array(sets.dropFirst(configuration.sequenceParameterSets.count))
            }
            let sets = H264ParameterSets(configuration)
            if case .idr = IDRPictureIDRewriterTests.classify(unit, sets) { read += 1 }
            let id = Int.random(in: -2...65_537, using: &rng)
            guard let bytes = IDRPictureIDRewriterTests.rewrite(unit, to: id, sets) else { continue }
            rewritten += 1
            #expect(IDRPictureIDRewriterTests.classify(bytes, sets) == .idr(pictureID: id))
            let before = IDRPictureIDRewriterTests.headers(unit, sets), after = IDRPictureIDRewriterTests.headers(bytes, sets)
            #expect(after.map { $0?.idrPictureID } == before.map { _ in id })
            #expect(after.map(IDRPictureIDRewriterTests.kept) == before.map(IDRPictureIDRewriterTests.kept))
        }
        print("IDR access units: \(read) read, \(rewritten) rewritten of 12000 mutants")
        #expect(read > 0 && rewritten > 0 && rewritten < 12_000)
    }
}
