import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutMediaIO

/// `IDRPictureIDRewriter` on x264's own output (made by the ffmpeg CLI): CAVLC and CABAC,
/// one slice or several, Baseline's picture order type 2, interlaced (MBAFF) and 10-bit
/// headers. It reads the ids FFmpeg's parser (trace_headers) reads; a rewrite changes the
/// id alone — every other header field read back the same, the other units untouched,
/// emulation prevention where it must be, and rewriting back gives the very bytes — and a
/// rewritten stream decodes to the same frames (framemd5) with the ids trace_headers reads.
@Suite(.tags(.slow)) struct IDRPictureIDRewriterTests {
    /// x264 settings covering the slice header's paths; every picture an IDR but in `gop`.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case cabac, cavlc, baseline, slices, cavlcSlices, interlaced, tenBit, gop

        var testDescription: String { rawValue }

        var arguments: [String] {
            let intra = ["-g", "1"]
            return switch self {
            case .cabac: intra
            case .cavlc: intra + ["-x264-params", "cabac=0"]
            case .baseline: intra + ["-profile:v", "baseline"]
            case .slices: intra + ["-x264-params", "slices=3"]
            case .cavlcSlices: intra + ["-x264-params", "cabac=0:slices=4"]
            case .interlaced: intra + ["-flags", "+ildct+ilme"]
            case .tenBit: intra + ["-profile:v", "high10"]
            case .gop: ["-g", "4", "-bf", "2"]
            }
        }

        var pixelFormat: String { self == .tenBit ? "yuv420p10le" : "yuv420p" }
    }

    struct Stream {
        var configuration: H264DecoderConfiguration
        /// Each packet's bytes: one access unit, NAL units after 4-byte lengths.
        var units: [[UInt8]]
        var sets: H264ParameterSets { H264ParameterSets(configuration) }
    }

    /// An 8-frame clip of `kind`, at `size`.
    static func clip(_ dir: TemporaryDirectory, _ kind: Kind, size: String = "320x240") throws -> String {
        let path = dir.file("\(kind.rawValue)-\(size).mp4")
        try Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "8", "-c:v", "libx264",
                               "-preset", "veryfast"] + kind.arguments + ["-pix_fmt", kind.pixelFormat], output: path)
        return path
    }

    /// The video's `avcC` and packets.
    static func stream(_ path: String) throws -> Stream {
        let configuration = try #require(H264DecoderConfiguration(try KeyframeIndex.scan(path: path, trackID: 1).decoderConfiguration))
        #expect(configuration.nalLengthSize == 4)
        let demuxer = try Demuxer(path: path)
        let packet = try Packet()
        var units: [[UInt8]] = []
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == 0 else { continue }
            units.append(packet.withPayload { Array($0) })
        }
        return Stream(configuration: configuration, units: units)
    }

    static func classify(_ unit: [UInt8], _ sets: H264ParameterSets) -> IDRPictureIDRewriter.AccessUnit {
        var sets = sets, scratch: [UInt8] = []
        return unit.withUnsafeBufferPointer { IDRPictureIDRewriter.classify($0, lengthSize: 4, sets: &sets, scratch: &scratch) }
    }

    static func rewrite(_ unit: [UInt8], to id: Int, _ sets: H264ParameterSets) -> [UInt8]? {
        unit.withUnsafeBufferPointer { IDRPictureIDRewriter.rewrite($0, lengthSize: 4, pictureID: id, sets: sets) }
    }

    /// Every IDR slice header of an access unit, in order (read with the sets it carries).
    static func headers(_ unit: [UInt8], _ sets: H264ParameterSets) -> [H264SliceHeader?] {
        var sets = sets
        return (H264DecoderConfiguration.nalUnits(unit, lengthSize: 4) ?? []).compactMap { nal -> H264SliceHeader?? in
            switch nal[0] & 0x1F {
            case 5: return .some(H264SliceHeader(rbsp: EmulationPrevention.removed(nal.dropFirst()), header: nal[0], sets: sets))
            case 7, 8: sets.add(nal)
            default: break
            }
            return nil
        }
    }

    /// A header with its id and where its fields lie set aside: what a rewrite keeps.
    static func kept(_ header: H264SliceHeader?) -> H264SliceHeader? {
        guard var header else { return nil }
        header.idrPictureID = 0
        header.idrPictureIDBits = 0..<0
        header.end = 0
        return header
    }

    /// Annex B bytes for the ffmpeg CLI: the parameter sets, then each access unit, every
    /// NAL unit after a start code.
    static func annexB(_ configuration: H264DecoderConfiguration, _ units: [[UInt8]]) -> Data {
        var out: [UInt8] = []
        for unit in configuration.sequenceParameterSets + configuration.pictureParameterSets { out += [0, 0, 0, 1] + unit }
        for unit in units {
            for nal in H264DecoderConfiguration.nalUnits(unit, lengthSize: 4) ?? [] { out += [0, 0, 0, 1] + nal }
        }
        return Data(out)
    }

    /// The frames' MD5s, as the ffmpeg CLI decodes `path`.
    static func frameHashes(_ path: String) throws -> [String] {
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path, "-f", "framemd5", "-"])
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    @Test(arguments: Kind.allCases) func readsTheIDsFFmpegReads(_ kind: Kind) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.clip(dir, kind)
        let stream = try Self.stream(path)
        let traced = try H264HeaderTrace.idrPictureIDs(of: path)
        #expect(traced.count == 8)
        let read = stream.units.map { Self.classify($0, stream.sets) }
        #expect(read == traced.map { $0.first.map { .idr(pictureID: $0) } ?? .other }, "\(traced)")
        if kind != .gop { #expect(read.allSatisfy { $0 != .other }) }
    }

    /// Ids of every length of code, up to 65535's 33 bits.
    @Test(arguments: Kind.allCases) func aRewriteChangesTheIDAlone(_ kind: Kind) throws {
        let dir = try TemporaryDirectory()
        let stream = try Self.stream(try Self.clip(dir, kind))
        let sets = stream.sets
        var rewrites = 0
        for unit in stream.units.prefix(4) {
            guard case let .idr(original) = Self.classify(unit, sets) else {
                #expect(Self.rewrite(unit, to: 1, sets) == nil, "no IDR slice: nothing to rewrite")
                continue
            }
            let before = Self.headers(unit, sets)
            #expect(!before.isEmpty && !before.contains(nil))
            for id in [0, 1, 2, 7, 255, 4096, 65535] {
                let rewritten = try #require(Self.rewrite(unit, to: id, sets))
                rewrites += 1
                #expect(Self.classify(rewritten, sets) == .idr(pictureID: id))
                let after = Self.headers(rewritten, sets)
                #expect(after.map { $0?.idrPictureID } == before.map { _ in id })
                #expect(after.map(Self.kept) == before.map(Self.kept))
                // Other units as they were; every unit escaped.
                let units = try #require(H264DecoderConfiguration.nalUnits(rewritten, lengthSize: 4))
                let originals = try #require(H264DecoderConfiguration.nalUnits(unit, lengthSize: 4))
                #expect(units.count == originals.count)
                for (new, old) in zip(units, originals) where old[0] & 0x1F != 5 { #expect(new == old) }
                for nal in units { #expect(Self.isEscaped(nal), "a start code or a trailing zero in a rewritten unit") }
                // Back to its own id: the very bytes x264 wrote.
                #expect(Self.rewrite(rewritten, to: original, sets) == unit)
            }
        }
        #expect(rewrites > 0)
    }

    /// 65535's code ends in 16 zero bits; in an IDR picture with B-frames about (picture
    /// order type 0) the zeros of its `pic_order_cnt_lsb` and marking flags follow, and
    /// the bytes they make are escaped (the stream decoding as before is checked below).
    @Test func zerosAfterALongIDAreEscaped() throws {
        let dir = try TemporaryDirectory()
        let stream = try Self.stream(try Self.clip(dir, .gop))
        let unit = stream.units[0]
        #expect(Self.classify(unit, stream.sets) == .idr(pictureID: 0))
        let rewritten = try #require(Self.rewrite(unit, to: 65535, stream.sets))
        #expect(Self.escapes(rewritten) > Self.escapes(unit))
        #expect(try #require(H264DecoderConfiguration.nalUnits(rewritten, lengthSize: 4)).allSatisfy(Self.isEscaped))
    }

    /// `00 00 03` sequences.
    static func escapes(_ bytes: [UInt8]) -> Int {
        bytes.indices.dropFirst(2).filter { bytes[$0 - 2] == 0 && bytes[$0 - 1] == 0 && bytes[$0] == 3 }.count
    }

    /// No `00 00 00`, `00 00 01` or `00 00 02` inside the unit, and no zero byte at its end.
    static func isEscaped(_ nal: [UInt8]) -> Bool {
        guard nal.last != 0 else { return false }
        return !nal.indices.dropFirst(2).contains { nal[$0 - 2] == 0 && nal[$0 - 1] == 0 && nal[$0] <= 2 }
    }

    /// The rewritten stream, ids far from x264's (and long codes), decodes without a word
    /// to the very frames the original does; trace_headers reads the ids written.
    @Test(arguments: [Kind.cabac, .cavlc, .baseline, .cavlcSlices, .interlaced, .tenBit, .gop])
    func aRewrittenStreamDecodesToTheSameFrames(_ kind: Kind) throws {
        let dir = try TemporaryDirectory()
        let stream = try Self.stream(try Self.clip(dir, kind))
        let ids = [65535, 3, 0, 40000, 1, 65534, 2, 300]
        // Every IDR picture renumbered; the others (in `gop`) as they are.
        let rewritten = try stream.units.enumerated().map { k, unit in
            Self.classify(unit, stream.sets) == .other ? unit : try #require(Self.rewrite(unit, to: ids[k], stream.sets))
        }
        let original = dir.file("original.h264"), renumbered = dir.file("renumbered.h264")
        try Self.annexB(stream.configuration, stream.units).write(to: URL(fileURLWithPath: original))
        try Self.annexB(stream.configuration, rewritten).write(to: URL(fileURLWithPath: renumbered))
        let hashes = try Self.frameHashes(original)
        #expect(hashes.count == 8)
        #expect(try Self.frameHashes(renumbered) == hashes)
        let decode = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", renumbered, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        let traced = try H264HeaderTrace.idrPictureIDs(of: renumbered)
        #expect(traced.map { Set($0) } == zip(stream.units, ids).map { unit, id in
            Self.classify(unit, stream.sets) == .other ? [] : Set([id])
        }, "\(traced)")
    }

    /// What it refuses: a picture parameter set with slice groups (FMO), an SI slice, a
    /// slice naming a set not known, an id out of range, a cut-short slice.
    @Test func refusesWhatItCannotRewrite() throws {
        let dir = try TemporaryDirectory()
        let stream = try Self.stream(try Self.clip(dir, .cavlc))
        let unit = stream.units[1]
        #expect(Self.rewrite(unit, to: 65536, stream.sets) == nil)
        #expect(Self.rewrite(unit, to: -1, stream.sets) == nil)

        // PPS 0 on SPS 0, CAVLC, two slice groups.
        var pps = H264BitWriter(capacity: 8)
        for value in [0, 0] { pps.writeUE(value) }
        pps.write(0, bits: 2)
        pps.writeUE(1)
        pps.writeUE(0)
        pps.write(bit: true)
        while !pps.isByteAligned { pps.write(bit: false) }
        var fmo = stream.configuration
        fmo.pictureParameterSets = [[0x68] + pps.bytes]
        #expect(try #require(H264DecoderConfiguration.PictureParameters(fmo.pictureParameterSets[0])).sliceHeaderFields == nil)
        #expect(Self.classify(unit, H264ParameterSets(fmo)) == .unreadable)
        #expect(Self.rewrite(unit, to: 5, H264ParameterSets(fmo)) == nil)
        // The same set in-band, before the slice, replaces the sample entry's.
        let inBand = [0, 0, 0, UInt8(pps.bytes.count + 1), 0x68] + pps.bytes + unit
        #expect(Self.classify(inBand, stream.sets) == .unreadable)

        // An SI slice (type 9) in an IDR unit.
        var si = H264BitWriter(capacity: 8)
        for value in [0, 9, 0] { si.writeUE(value) }
        si.write(bit: true)
        while !si.isByteAligned { si.write(bit: false) }
        let siUnit = [0, 0, 0, UInt8(si.bytes.count + 1), 0x65] + si.bytes
        #expect(Self.classify(siUnit, stream.sets) == .unreadable)
        #expect(Self.rewrite(siUnit, to: 1, stream.sets) == nil)

        // No parameter sets at all, and a slice cut to its header.
        #expect(Self.classify(unit, H264ParameterSets(H264DecoderConfiguration(
            profile: 66, compatibility: 0, level: 30, nalLengthSize: 4, sequenceParameterSets: [], pictureParameterSets: []))) == .unreadable)
        let nal = try #require(H264DecoderConfiguration.nalUnits(unit, lengthSize: 4)?.first { $0[0] & 0x1F == 5 })
        let cut = [0, 0, 0, 3] + nal.prefix(3)
        #expect(Self.rewrite(cut, to: 1, stream.sets) == nil)
    }
}
