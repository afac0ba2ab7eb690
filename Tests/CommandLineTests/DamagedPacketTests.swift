import Foundation
import Testing
import TestSupport

/// Issue 18: one damaged packet used to fail the whole render (avcodec_send_packet's
/// error aborted it at that frame, where ffmpeg renders the file). Damage is concealed as
/// ffmpeg does — the packet is skipped, the picture holds the last good frame, a warning
/// gives the count — and a render fails only past half of the stream's packets.
@Suite(.tags(.slow)) struct DamagedPacketTests {
    /// A 2 s, 60-frame clip whose video packets at `indices` announce a NAL unit longer
    /// than the packet ("Invalid NAL unit size"): what a bit flip in a length field does.
    static func damagedClip(in dir: TemporaryDirectory, name: String, packets indices: [Int]) async throws -> String {
        let clip = try await Fixtures.makeClip(in: dir.path, name: "source-\(name)", seconds: 2)
        let path = dir.file(name)
        try await DamagedPacketFixture.damage(clip, packets: indices, into: path)
        return path
    }

    @Test func oneDamagedPacketIsConcealedAndTheClipRendersWhole() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-damage")
        let clip = try await Self.damagedClip(in: dir, name: "one.mp4", packets: [30])
        // The fixture really is damaged: ffmpeg reports it (and still renders it).
        let oracle = try await Command.run("ffmpeg", ["-v", "error", "-i", clip, "-f", "null", "-"])
        #expect(oracle.stderr.contains("Invalid NAL unit size"), "\(oracle.stderr)")

        let output = dir.file("one-out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("concealed 1 damaged packet(s) of 60"), "\(result.stderr)")
        let duration = try FFprobe.format(of: output).duration.flatMap(Double.init)
        #expect(duration.map { abs($0 - 2) < 0.05 } == true, "\(String(describing: duration))")
        let frames = try await Command.runChecked("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                        "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output])
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "60")
    }

    @Test func damageBeyondHalfTheStreamFailsNamingTheCount() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-damage")
        // Two of every three video packets after the first.
        let clip = try await Self.damagedClip(in: dir, name: "many.mp4", packets: (1..<60).filter { $0 % 3 != 0 })
        let output = dir.file("many-out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(clip): stream 0: 40 of 60 packets are damaged; more than 50 % is not concealed\n  detail: avcodec_"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
