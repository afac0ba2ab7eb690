import Testing
@testable import DropcutMediaIO
import DropcutTimeline
import TestSupport

/// The `avcC` reader and writer, and the parameter sets' fields smart rendering needs.
@Suite struct H264DecoderConfigurationTests {
    /// x264's Main profile, level 4.0, 320x240, SPS and PPS id 3 (`-x264-params sps-id=3`), CABAC.
    static let sps: [UInt8] = [0x67, 0x4D, 0x40, 0x28, 0x26, 0xCA, 0x0A, 0x0F, 0xD8, 0x08, 0x80, 0x00, 0x00, 0x03, 0x00, 0x80,
                               0x00, 0x00, 0x1E, 0x07, 0x8C, 0x18, 0xCB]
    static let pps: [UInt8] = [0x68, 0x21, 0x2B, 0xE3, 0xCB, 0x20]

    static var configuration: H264DecoderConfiguration {
        H264DecoderConfiguration(profile: 0x4D, compatibility: 0x40, level: 0x28, nalLengthSize: 4,
                                sequenceParameterSets: [sps], pictureParameterSets: [pps])
    }

    @Test func readsTheFieldsOfX264sParameterSets() throws {
        let sps = try #require(H264DecoderConfiguration.SequenceParameters(Self.sps))
        #expect(sps.profile == 77 && sps.level == 40 && sps.id == 3 && sps.chromaFormat == 1 && sps.bitDepthLuma == 8)
        #expect(sps.frameMacroblocksOnly && sps.widthInMacroblocks == 20 && sps.heightInMapUnits == 15)
        #expect(sps.x264Profile == "main")
        // What a slice header's syntax depends on.
        #expect(!sps.separateColourPlanes && sps.frameNumberBits == 4 && sps.pictureOrderCountType == 0
                && sps.pictureOrderCountLSBBits == 6 && !sps.deltaPictureOrderAlwaysZero)
        let pps = try #require(H264DecoderConfiguration.PictureParameters(Self.pps))
        #expect(pps.id == 3 && pps.sequenceID == 3 && pps.cabac)
        let fields = try #require(pps.sliceHeaderFields)
        #expect(!fields.bottomFieldPictureOrderInFramePresent && fields.referenceIndicesL0 == 3 && fields.referenceIndicesL1 == 1)
        #expect(fields.weightedPrediction && fields.weightedBipredictionIDC == 2 && fields.initialQPOffset == -3)
        #expect(fields.deblockingFilterControlPresent && !fields.constrainedIntraPrediction && !fields.redundantPictureCountPresent)
    }

    @Test func writesAndReadsBackTheSameBox() throws {
        var configuration = Self.configuration
        let bytes = try #require(configuration.bytes)
        #expect(bytes.prefix(6) == [1, 0x4D, 0x40, 0x28, 0xFF, 0xE1])
        #expect(H264DecoderConfiguration(bytes) == configuration)
        // Id 3 is taken by both sets: 0 is the first free one.
        #expect(configuration.freeParameterSetID == 0)
        configuration.sequenceParameterSets = Array(repeating: Self.sps, count: 32)
        #expect(configuration.bytes == nil)
    }

    @Test func splitsAnnexBAndLengthPrefixedUnits() {
        let annexB: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps
        #expect(H264DecoderConfiguration.nalUnits(annexB, lengthSize: nil) == [Self.sps, Self.pps])
        let prefixed: [UInt8] = [0, 0, 0, UInt8(Self.sps.count)] + Self.sps + [0, 0, 0, UInt8(Self.pps.count)] + Self.pps
        #expect(H264DecoderConfiguration.nalUnits(prefixed, lengthSize: 4) == [Self.sps, Self.pps])
        #expect(H264DecoderConfiguration.nalUnits(Array(prefixed.dropLast()), lengthSize: 4) == nil)
    }

    /// Hostile boxes: every byte flipped, truncated at every length, random bytes — read
    /// without a trap, and anything read writes back.
    @Test func survivesMutatedBoxes() throws {
        let good = try #require(Self.configuration.bytes)
        var rng = SplitMix64(state: 0xA0C)
        var inputs: [[UInt8]] = (0...good.count).map { Array(good.prefix($0)) }
        for _ in 0..<20_000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            inputs.append(bytes)
            inputs.append((0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        for bytes in inputs {
            guard let read = H264DecoderConfiguration(bytes) else { continue }
            _ = read.sequenceParameters
            _ = read.pictureParameters
            _ = read.freeParameterSetID
            if let written = read.bytes { #expect(H264DecoderConfiguration(written) == read) }
            _ = H264DecoderConfiguration.nalUnits(bytes, lengthSize: nil)
            _ = H264DecoderConfiguration.nalUnits(bytes, lengthSize: Int.random(in: 0...5, using: &rng))
        }
    }
}
