import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An independent oracle for what a media file contains: the `ffprobe` command-line tool.
public enum FFprobe {
    /// One stream as ffprobe reports it (`-show_entries stream=...`).
    public struct Stream: Decodable, Sendable, Equatable {
        public let index: Int
        public let codecName: String?
        public let codecType: String?
        /// `num/den`, e.g. `1/15360`.
        public let timeBase: String?
        /// The duration in `timeBase` ticks.
        public let durationTicks: Int64?
        public let width: Int?
        public let height: Int?
        /// ffprobe prints the sample rate as a string.
        public let sampleRate: String?
        public let channels: Int?

        enum CodingKeys: String, CodingKey {
            case index, width, height, channels
            case codecName = "codec_name", codecType = "codec_type", timeBase = "time_base"
            case durationTicks = "duration_ts", sampleRate = "sample_rate"
        }
    }

    /// The container as ffprobe reports it (`-show_entries format=...`).
    public struct Format: Decodable, Sendable, Equatable {
        /// `mov,mp4,m4a,3gp,3g2,mj2`...
        public let formatName: String?
        /// Seconds with six decimals: exact, as FFmpeg keeps container durations in µs.
        public let duration: String?

        enum CodingKeys: String, CodingKey {
            case formatName = "format_name", duration
        }
    }

    /// The codec name of every stream, in file order
    /// (`ffprobe -v error -show_entries stream=codec_name -of csv=p=0 FILE`).
    public static func codecNames(of path: String) throws -> [String] {
        let output = try Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name",
                                                        "-of", "csv=p=0", path])
        return output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Every stream's details, in file order.
    public static func streams(of path: String) throws -> [Stream] {
        try report(of: path).streams ?? []
    }

    /// The container's format name and duration.
    public static func format(of path: String) throws -> Format {
        guard let format = try report(of: path).format else {
            throw CommandError(command: ["ffprobe", path], status: 0, stderr: "no format section in ffprobe's output")
        }
        return format
    }

    private struct Report: Decodable {
        let streams: [Stream]?
        let format: Format?
    }

    private static func report(of path: String) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(try streamsAndFormat(of: path).utf8))
    }

    /// ffprobe's JSON with every stream and format entry that `Stream`, `StreamFacts` and
    /// `Format` read: one process answers all three. Kept per file version (device, inode,
    /// size, modification and change times), so a test asking about the same unchanged file
    /// again (its streams, then its video, then its audio) starts ffprobe once — each start
    /// costs about 60 ms of CPU, and the suites ask hundreds of times.
    static func streamsAndFormat(of path: String) throws -> String {
        var info = stat()
        let version = stat(path, &info) == 0
            ? "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
            : nil
        let key = version.map { path + "\u{0}" + $0 }
        if let key, let known = answers.withLock({ $0[key] }) { return known }
        let output = try Command.runChecked("ffprobe", [
            "-v", "error", "-of", "json",
            "-show_entries", "stream=index,codec_name,codec_type,time_base,duration_ts,width,height,sample_rate,channels,"
                + "r_frame_rate,color_space,sample_aspect_ratio,field_order,duration,nb_frames",
            "-show_entries", "format=format_name,duration",
            path,
        ])
        if let key {
            answers.withLock {
                if $0.count >= 512 { $0.removeAll() }
                $0[key] = output
            }
        }
        return output
    }

    private static let answers = Mutex<[String: String]>([:])
}
