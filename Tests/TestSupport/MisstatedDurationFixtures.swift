import Foundation

/// Clips whose containers misstate how long they last, as real recorders and browsers
/// write them: a fragmented MP4 whose segment index claims hours for a 2 s clip, and a
/// WebM streamed to a pipe that states no duration at all.
extension Fixtures {
    /// What the fragmented MP4's last segment-index entries claim each fragment lasts, in
    /// its track's timescale: the largest 31-bit value, ~39 hours at the 15360 Hz video
    /// timescale (ffmpeg's reading of the file then says 139,811 s).
    public static let misstatedSubsegmentDuration: UInt32 = 0x7FFF_FFFF

    /// A `seconds`-long 320x240 30 fps H.264 (BT.709, tagged as phones do) + AAC clip
    /// written as fragmented MP4 for DASH (`-movflags +dash`: a `moof` per half-second GOP,
    /// each led by a `sidx` per track), whose last `sidx` of each track is then patched to
    /// claim `misstatedSubsegmentDuration`. FFmpeg takes a complete segment index as the
    /// file's timing, so it reports a duration of ~39 hours while the packets end at
    /// `seconds` (and ffmpeg still decodes every frame). Returns the path.
    public static func makeFragmentedMP4WithMisstatedDuration(in dir: String, name: String = "fragmented.mp4",
                                                              seconds: Int = 2) throws -> String {
        let output = (dir as NSString).appendingPathComponent(name)
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=\(seconds)",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                          "-map", "0:v", "-map", "1:a",
                                          "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "15",
                                          "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                          "-color_range", "tv", "-c:a", "aac", "-movflags", "+dash", output])
        var data = try Data(contentsOf: URL(fileURLWithPath: output))
        // The last sidx of each track (reference_ID), found walking the top-level boxes.
        var lastIndex: [UInt32: Int] = [:]
        var offset = 0
        while offset + 8 <= data.count {
            var size = Int(data.bigEndianUInt32(at: offset))
            if size == 1, offset + 16 <= data.count { size = Int(exactly: data.bigEndianUInt64(at: offset + 8)) ?? -1 }
            if size == 0 { size = data.count - offset }
            guard size >= 8, offset + size <= data.count else {
                throw CommandError(command: ["patch sidx", output], status: nil, stderr: "box at \(offset) has size \(size)")
            }
            if data[offset + 4..<offset + 8] == Data("sidx".utf8) {
                lastIndex[data.bigEndianUInt32(at: offset + 12)] = offset
            }
            offset += size
        }
        guard lastIndex.count == 2 else {
            throw CommandError(command: ["patch sidx", output], status: nil, stderr: "expected a sidx per track, found \(lastIndex.count) tracks")
        }
        for box in lastIndex.values {
            // FullBox header, reference_ID, timescale, then earliest time and first offset
            // (32-bit in version 0, 64-bit in version 1), 2 reserved bytes, the count, and
            // 12-byte references: size, subsegment_duration, SAP.
            let version = data[box + 8]
            let counted = box + 8 + 4 + 4 + 4 + (version == 0 ? 8 : 16) + 2
            let references = Int(data.bigEndianUInt16(at: counted))
            for reference in 0..<references {
                data.setBigEndianUInt32(misstatedSubsegmentDuration, at: counted + 2 + reference * 12 + 4)
            }
        }
        try data.write(to: URL(fileURLWithPath: output))
        return output
    }

    /// A `seconds`-long 320x240 VP9 + Opus WebM written to a pipe, as browsers' and live
    /// recorders' are: the muxer cannot seek back, so the file states no duration and has
    /// no cue index. Returns the path.
    public static func makeWebMWithoutDuration(in dir: String, name: String = "live.webm", seconds: Int = 2) throws -> String {
        let output = (dir as NSString).appendingPathComponent(name)
        try Command.runChecked("sh", ["-c", "ffmpeg -hide_banner -nostdin -loglevel error "
                                      + "-f lavfi -i testsrc2=size=320x240:rate=30:duration=\(seconds) -f lavfi -i sine=d=\(seconds) "
                                      + "-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -c:a libopus -shortest -f webm - > \"$0\"",
                                      output])
        return output
    }
}

extension Data {
    fileprivate func bigEndianUInt16(at offset: Int) -> UInt16 {
        self[offset..<offset + 2].reduce(0) { $0 << 8 | UInt16($1) }
    }

    fileprivate func bigEndianUInt32(at offset: Int) -> UInt32 {
        self[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    fileprivate func bigEndianUInt64(at offset: Int) -> UInt64 {
        self[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    fileprivate mutating func setBigEndianUInt32(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { self[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
    }
}
