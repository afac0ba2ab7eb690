internal import CDropcutFFmpeg
import Foundation

extension Demuxer {
    /// How much of a file `contentFormat(of:)` reads: libavformat's own most
    /// (`PROBE_BUF_MAX`), enough for a JPEG's markers past a large EXIF block.
    static let contentProbeBytes = 1 << 20

    /// The demuxer libavformat's probe picks for the file at `path` by its first bytes
    /// alone (`av_probe_input_format3`, no file name given, so no extension counts):
    /// `png_pipe` for a PNG whatever it is called, `mov,mp4,...` for a movie. Nil when the
    /// file cannot be read or nothing recognises it. Nothing is opened with it: callers
    /// choose which whitelist to open the file with (`containers` or pictures), so a
    /// picture is never first refused by the movie whitelist (which FFmpeg logs as an error).
    static func contentFormat(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // As av_probe_input_buffer2: 2 KiB, doubled while no demuxer is sure (score at most
        // AVPROBE_SCORE_RETRY), up to the most; the bytes are read once.
        var head = Data(), size = 2048
        var best: (name: String, score: Int32)?
        while true {
            if head.count < size, let more = try? handle.read(upToCount: size - head.count) { head += more }
            guard !head.isEmpty else { return nil }
            best = probe(head)
            if let best, best.score > AVPROBE_SCORE_RETRY { return best.name }
            if head.count < size || size >= contentProbeBytes { return best?.name }
            size *= 2
        }
    }

    /// The demuxer whose probe scores `head` highest, with its score.
    private static func probe(_ head: Data) -> (name: String, score: Int32)? {
        // The probe functions may read past the data: the padding must be there, zeroed.
        var buffer = [UInt8](head)
        buffer += [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        var score: Int32 = 0
        let format: UnsafePointer<AVInputFormat>? = buffer.withUnsafeMutableBufferPointer { bytes in
            "".withCString { noName in
                var probe = AVProbeData()
                probe.filename = noName
                probe.buf = bytes.baseAddress
                probe.buf_size = Int32(head.count)
                return av_probe_input_format3(&probe, 1, &score)
            }
        }
        guard let format, score > 0 else { return nil }
        return (String(cString: format.pointee.name), score)
    }

    /// Whether the file begins like an ISO base media file (MP4, MOV, 3GP): a box whose
    /// type is one that opens such files. Such a file that FFmpeg cannot open is one whose
    /// index has not arrived, not some other kind of file.
    static func startsWithISOBox(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 8), head.count == 8 else { return false }
        return ["ftyp", "mdat", "wide", "free", "skip", "moov"].contains(String(decoding: head.suffix(4), as: UTF8.self))
    }
}
