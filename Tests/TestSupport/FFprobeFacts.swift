import Foundation

/// More of what `ffprobe` reports about a rendered file: per-stream durations and rates,
/// packet timing, decoded frame counts, side data.
extension FFprobe {
    /// One stream's timing and picture facts (`-show_entries stream=...`).
    public struct StreamFacts: Decodable, Sendable {
        public let codecType: String?
        public let width: Int?
        public let height: Int?
        /// `num/den`, e.g. `30/1`.
        public let frameRate: String?
        public let colorSpace: String?
        public let sampleRate: String?
        /// `num:den`, e.g. `16:9` (video; `1:1` or absent for square pixels).
        public let sampleAspectRatio: String?
        /// `progressive`, `tt`, `bb`, `tb`, `bt` (video, when known).
        public let fieldOrder: String?
        private let durationText: String?
        private let frameCountText: String?

        /// Seconds, as the container states them.
        public var duration: Double? { durationText.flatMap(Double.init) }
        /// `nb_frames` (packets) as the container states it.
        public var frameCount: Int? { frameCountText.flatMap { Int($0) } }

        enum CodingKeys: String, CodingKey {
            case width, height
            case codecType = "codec_type", frameRate = "r_frame_rate", colorSpace = "color_space", sampleRate = "sample_rate"
            case sampleAspectRatio = "sample_aspect_ratio", fieldOrder = "field_order"
            case durationText = "duration", frameCountText = "nb_frames"
        }
    }

    /// Every stream's facts, in file order.
    public static func facts(of path: String) throws -> [StreamFacts] {
        struct Report: Decodable { let streams: [StreamFacts]? }
        return try JSONDecoder().decode(Report.self, from: Data(try streamsAndFormat(of: path).utf8)).streams ?? []
    }

    /// The first stream of `type` (`video`, `audio`); nil when there is none.
    public static func stream(_ type: String, of path: String) throws -> StreamFacts? {
        try facts(of: path).first { $0.codecType == type }
    }

    /// The first video stream's packets in decoding order: presentation time (seconds),
    /// duration (time-base ticks) and whether it is a keyframe.
    public static func videoPackets(of path: String) throws -> [(time: Double, duration: Int64, keyframe: Bool)] {
        struct Packet: Decodable {
            let pts_time: String?, duration: Int64?, flags: String?
        }
        struct Report: Decodable { let packets: [Packet]? }
        let output = try Command.runChecked("ffprobe", [
            "-v", "error", "-of", "json", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration,flags", path,
        ])
        return (try JSONDecoder().decode(Report.self, from: Data(output.utf8)).packets ?? []).map {
            (Double($0.pts_time ?? "") ?? .nan, $0.duration ?? -1, $0.flags?.hasPrefix("K") ?? false)
        }
    }

    /// How many frames the first video stream decodes to (`-count_frames`, `nb_read_frames`).
    public static func decodedVideoFrames(of path: String) throws -> Int {
        let output = try Command.runChecked("ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", path,
        ])
        guard let count = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CommandError(command: ["ffprobe", "-count_frames", path], status: 0, stderr: "not a frame count: \(output)")
        }
        return count
    }

    /// How the decoder flags the first video stream's first `count` frames: woven from two
    /// fields (`interlaced_frame`), and which comes first (`top_field_first`).
    public static func frameFields(of path: String, count: Int = 4) throws -> [(interlaced: Bool, topFieldFirst: Bool)] {
        struct Frame: Decodable {
            let interlaced_frame: Int?, top_field_first: Int?
        }
        struct Report: Decodable { let frames: [Frame]? }
        let output = try Command.runChecked("ffprobe", [
            "-v", "error", "-of", "json", "-select_streams", "v:0", "-read_intervals", "%+#\(count)",
            "-show_entries", "frame=interlaced_frame,top_field_first", path,
        ])
        return (try JSONDecoder().decode(Report.self, from: Data(output.utf8)).frames ?? []).map {
            ($0.interlaced_frame == 1, $0.top_field_first == 1)
        }
    }

    /// The first video stream's side data as ffprobe prints it (JSON text; `Display Matrix`
    /// and `rotation` appear when the stream carries a display matrix).
    public static func videoSideData(of path: String) throws -> String {
        try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data",
                                           "-of", "json", path])
    }
}
