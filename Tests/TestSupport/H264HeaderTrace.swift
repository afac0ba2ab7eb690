import Foundation

/// FFmpeg's own reading of an H.264 stream's headers (`-bsf:v trace_headers`, its CBS
/// parser): the independent oracle for what dropcut writes into slice headers.
public enum H264HeaderTrace {
    /// The `idr_pic_id` of each IDR slice, access unit by access unit in decoding order
    /// (an empty list for an access unit without IDR slices), of the first video stream of
    /// `path` (MP4, or raw H.264 with the `.h264` extension). trace_headers prints
    /// `Packet: N bytes…` before each packet's units and, per IDR slice, a line ending
    /// `idr_pic_id    <bits> = <value>`.
    public static func idrPictureIDs(of path: String) throws -> [[Int]] {
        let run = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-nostats", "-i", path, "-map", "0:v:0", "-c:v", "copy",
                                             "-bsf:v", "trace_headers", "-f", "null", "-"])
        guard run.status == 0 else { throw CommandError(command: ["ffmpeg trace_headers", path], status: run.status, stderr: run.stderr) }
        var units: [[Int]] = []
        for line in run.stderr.split(whereSeparator: \.isNewline) {
            if line.contains("] Packet: ") {
                units.append([])
            } else if line.contains(" idr_pic_id "), let value = line.split(separator: "=").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                guard !units.isEmpty else { continue }
                units[units.count - 1].append(value)
            }
        }
        return units
    }

    /// Where two IDR access units in a row carry the same `idr_pic_id` (H.264 7.4.3
    /// forbids it): the index of the second of each pair.
    public static func repeatedIDRPictureIDs(_ units: [[Int]]) -> [Int] {
        units.indices.dropFirst().filter { k in
            guard let before = units[k - 1].first, let id = units[k].first else { return false }
            return before == id
        }
    }
}
