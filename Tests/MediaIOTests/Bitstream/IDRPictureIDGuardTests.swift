import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutMediaIO

/// `IDRPictureIDGuard` on packets of an all-intra x264 clip (ids 0, 1, 0, 1…) passed in
/// orders a splice makes: a picture repeated back to back is renumbered, in its packet
/// (timestamps and flags kept), to an id neither the one before's nor its own; the rest
/// pass untouched; an IDR picture whose header cannot be read next to another is refused.
@Suite struct IDRPictureIDGuardTests {
    static func packet(_ bytes: [UInt8], pts: Int64) throws -> Packet {
        let packet = try Packet()
        try packet.replacePayload(with: bytes)
        packet.retime(pts: pts, dts: pts, duration: 1)
        return packet
    }

    @Test func renumbersOnlyARepeatedID() throws {
        let dir = try TemporaryDirectory()
        let stream = try IDRPictureIDRewriterTests.stream(try IDRPictureIDRewriterTests.clip(dir, .cavlc))
        let sets = stream.sets
        let guardian = IDRPictureIDGuard(configuration: stream.configuration)
        let zero = stream.units[0], one = stream.units[1], two = stream.units[2]
        var outcomes: [IDRPictureIDGuard.Outcome] = [], ids: [IDRPictureIDRewriter.AccessUnit] = []
        // x264's own order, then a join repeating id 0 (renumbered 1), and id 1 after it
        // (renumbered 2: 1 is the one before's as written, 0 its own).
        for (k, unit) in [zero, one, two, two, one, zero].enumerated() {
            let packet = try Self.packet(unit, pts: Int64(k))
            outcomes.append(try guardian.pass(packet))
            #expect(packet.pts == Int64(k) && packet.duration == 1)
            ids.append(packet.withPayload { IDRPictureIDRewriterTests.classify(Array($0), sets) })
            if outcomes.last == .kept { #expect(packet.withPayload { Array($0) } == unit, "a packet kept is not touched") }
        }
        #expect(outcomes == [.kept, .kept, .kept, .rewritten(from: 0, to: 1), .rewritten(from: 1, to: 2), .kept])
        #expect(ids == [0, 1, 0, 1, 2, 0].map { .idr(pictureID: $0) })
    }

    @Test func refusesAnUnreadableIDRPictureBesideAnother() throws {
        let dir = try TemporaryDirectory()
        let stream = try IDRPictureIDRewriterTests.stream(try IDRPictureIDRewriterTests.clip(dir, .cavlc))
        // An SI slice (type 9) in an IDR unit: not read.
        var si = H264BitWriter(capacity: 8)
        for value in [0, 9, 0] { si.writeUE(value) }
        si.write(bit: true)
        while !si.isByteAligned { si.write(bit: false) }
        let unreadable = [0, 0, 0, UInt8(si.bytes.count + 1), 0x65] + si.bytes
        let guardian = IDRPictureIDGuard(configuration: stream.configuration)
        #expect(try guardian.pass(try Self.packet(unreadable, pts: 0)) == .kept, "nothing before it to differ from")
        guard case .refused = try guardian.pass(try Self.packet(stream.units[0], pts: 1)) else {
            Issue.record("an IDR picture after an unreadable one is not refused")
            return
        }
        guard case .refused = try guardian.pass(try Self.packet(unreadable, pts: 2)) else {
            Issue.record("an unreadable IDR picture after a readable one is not refused")
            return
        }
    }
}
