import Foundation

/// Pictures and sound decoded by the `ffmpeg` CLI (the independent oracle), for checks
/// on pixel values and levels.
public enum DecodedMedia {
    /// Frame `index` of `path`'s first video stream as yuv420p planes (Y, then U, then V),
    /// decoded with timestamps passed through (no frame rate conversion).
    public static func yuvFrame(of path: String, index: Int, width: Int, height: Int) throws -> (y: [UInt8], u: [UInt8], v: [UInt8]) {
        let raw = try decode(path, ["-map", "0:v:0", "-vf", "select=eq(n\\,\(index))", "-fps_mode", "passthrough",
                                    "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p"])
        let lumaSize = width * height, chromaSize = ((width + 1) / 2) * ((height + 1) / 2)
        guard raw.count == lumaSize + 2 * chromaSize else {
            throw CommandError(command: ["ffmpeg", "-i", path, "frame \(index)"], status: nil,
                               stderr: "expected \(lumaSize + 2 * chromaSize) bytes, got \(raw.count)")
        }
        return (Array(raw[0..<lumaSize]), Array(raw[lumaSize..<lumaSize + chromaSize]), Array(raw[(lumaSize + chromaSize)...]))
    }

    /// Frame `index` of `path`'s first video stream as 10-bit yuv420p10le planes (codes
    /// 0...1023 as stored — no range expansion), for HDR outputs.
    public static func yuv10Frame(of path: String, index: Int, width: Int, height: Int) throws -> (y: [UInt16], u: [UInt16], v: [UInt16]) {
        let raw = try decode(path, ["-map", "0:v:0", "-vf", "select=eq(n\\,\(index))", "-fps_mode", "passthrough",
                                    "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p10le"])
        let lumaSize = width * height, chromaSize = ((width + 1) / 2) * ((height + 1) / 2)
        guard raw.count == 2 * (lumaSize + 2 * chromaSize) else {
            throw CommandError(command: ["ffmpeg", "-i", path, "frame \(index)"], status: nil,
                               stderr: "expected \(2 * (lumaSize + 2 * chromaSize)) bytes, got \(raw.count)")
        }
        let bytes = [UInt8](raw)
        var samples = [UInt16](repeating: 0, count: bytes.count / 2)
        for i in samples.indices {
            let low = UInt16(bytes[2 * i]), high = UInt16(bytes[2 * i + 1])
            samples[i] = low | high << 8
        }
        return (Array(samples[0..<lumaSize]), Array(samples[lumaSize..<lumaSize + chromaSize]), Array(samples[(lumaSize + chromaSize)...]))
    }

    /// Every frame of `path`'s first video stream as its Y plane (`width × height` bytes,
    /// video-range values as stored — no range expansion), timestamps passed through.
    public static func lumaFrames(of path: String, width: Int, height: Int) throws -> [[UInt8]] {
        let raw = try decode(path, ["-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p"])
        let lumaSize = width * height, frameSize = lumaSize + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        guard lumaSize > 0, raw.count % frameSize == 0 else {
            throw CommandError(command: ["ffmpeg", "-i", path, "yuv420p frames"], status: nil,
                               stderr: "\(raw.count) bytes is not a whole number of \(width)x\(height) frames")
        }
        return stride(from: 0, to: raw.count, by: frameSize).map { Array(raw[$0..<$0 + lumaSize]) }
    }

    /// `path`'s first audio stream as mono float samples (channels averaged) at `sampleRate`.
    public static func monoSamples(of path: String, sampleRate: Int = 48_000) throws -> [Float] {
        let raw = try decode(path, ["-map", "0:a:0", "-ac", "1", "-ar", "\(sampleRate)", "-f", "f32le", "-c:a", "pcm_f32le"])
        return raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Root-mean-square level in dBFS of `samples[range]` (-inf for digital silence).
    public static func rmsDecibels(_ samples: [Float], _ range: Range<Int>) -> Double {
        let slice = samples[max(0, range.lowerBound)..<min(samples.count, range.upperBound)]
        guard !slice.isEmpty else { return -.infinity }
        let meanSquare = slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)
        return 10 * log10(meanSquare)
    }

    private static func decode(_ path: String, _ outputArguments: [String]) throws -> Data {
        let output = NSTemporaryDirectory() + "dropcut-decoded-\(UUID().uuidString).raw"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", path] + outputArguments + [output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }
}
