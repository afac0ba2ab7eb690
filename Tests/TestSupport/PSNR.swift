import Foundation

/// Picture similarity measured by the `ffmpeg` CLI's `psnr` filter (the independent oracle):
/// `ffmpeg -i A -i B -lavfi "[0:v]FA[a];[1:v]FB[b];[a][b]psnr" -f null -`.
///
/// Frames are paired by timestamp (the filter's frame sync), so both inputs must carry real
/// timestamps: compare decoded media files, never raw `.yuv` without `-framerate` (rawvideo
/// defaults to 25 fps). The `ffmpeg` CLI autorotates its inputs, so a file tagged with a
/// display rotation is compared upright.
public enum PSNR {
    /// What the filter reported.
    public struct Result: Sendable, CustomStringConvertible {
        /// dB over all compared frames, from the mean squared error (`average:`); `.infinity`
        /// when every frame is identical.
        public let average: Double
        /// The worst frame's dB (`min:`).
        public let min: Double
        /// Each compared frame's dB (`psnr_avg` of the stats file), in order.
        public let frames: [Double]

        public var description: String {
            "average \(Self.format(average)) dB, min \(Self.format(min)) dB over \(frames.count) frames"
        }

        static func format(_ value: Double) -> String {
            value.isFinite ? String(format: "%.2f", value) : "\(value)"
        }
    }

    /// PSNR of `a`'s first video stream against `b`'s, each first passed through a filter
    /// chain (`filterA`, `filterB`; `null` for none), e.g. `"select=eq(n\\,15),setpts=PTS-STARTPTS"`
    /// to pick one frame or `"scale=320:240"` to build a reference; `inputOptionsB` go
    /// before `b` (`-noautorotate` to read its pixels as stored). Throws a `CommandError`
    /// when ffmpeg fails or compares no frame.
    public static func compare(_ a: String, _ b: String, filterA: String = "null", filterB: String = "null",
                               inputOptionsB: [String] = []) throws -> Result {
        let stats = NSTemporaryDirectory() + "dropcut-psnr-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let graph = "[0:v]\(filterA)[a];[1:v]\(filterB)[b];[a][b]psnr=stats_file=\(stats)"
        let args = ["-hide_banner", "-nostdin", "-nostats", "-i", a] + inputOptionsB + ["-i", b, "-lavfi", graph, "-f", "null", "-"]
        let result = try Command.run("ffmpeg", args)
        guard result.status == 0 else { throw CommandError(command: ["ffmpeg"] + args, status: result.status, stderr: result.stderr) }
        // "[Parsed_psnr_2 @ 0x...] PSNR y:43.36 u:40.73 v:40.71 average:42.29 min:41.49 max:45.62"
        guard let line = result.stderr.split(whereSeparator: \.isNewline).last(where: { $0.contains("PSNR y:") }),
              let average = value(of: "average", in: line), let min = value(of: "min", in: line) else {
            throw CommandError(command: ["ffmpeg"] + args, status: result.status, stderr: "no PSNR summary:\n\(result.stderr)")
        }
        let perFrame = (try? String(contentsOfFile: stats, encoding: .utf8)) ?? ""
        let frames = perFrame.split(whereSeparator: \.isNewline).compactMap { value(of: "psnr_avg", in: $0) }
        guard !frames.isEmpty else {
            throw CommandError(command: ["ffmpeg"] + args, status: result.status, stderr: "no frame compared:\n\(result.stderr)")
        }
        return Result(average: average, min: min, frames: frames)
    }

    /// The number after `key:` in `line` (`inf` is infinity).
    private static func value(of key: String, in line: Substring) -> Double? {
        for field in line.split(separator: " ") where field.hasPrefix(key + ":") {
            return Double(field.dropFirst(key.count + 1))
        }
        return nil
    }
}
