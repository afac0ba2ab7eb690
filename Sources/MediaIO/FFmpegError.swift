internal import CDropcutFFmpeg

/// A failed FFmpeg call: the negative return code, FFmpeg's own text for it
/// (`av_strerror`), the function that failed, and the file and stream it concerned.
public struct FFmpegError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let function: String
    public let path: String?
    public let streamIndex: Int?
    /// What dropcut adds to FFmpeg's text, when that alone would not tell a user the cause.
    public let note: String?
    /// The file ends before what its own index says it holds (an MP4/MOV without its moov
    /// box, or whose index places media past the end): what a file still being written,
    /// or cut short while it was copied, looks like.
    public let isIncompleteFile: Bool

    package init(code: Int32, function: String, path: String?, streamIndex: Int? = nil, note: String? = nil,
                incompleteFile: Bool = false) {
        self.code = code
        self.message = FFmpegError.text(for: code)
        self.function = function
        self.path = path
        self.streamIndex = streamIndex
        self.note = note
        self.isIncompleteFile = incompleteFile
    }

    /// What went wrong in words, then FFmpeg's own account on a detail line:
    ///
    ///     clip.mp4: is not a video or audio file dropcut can read
    ///       detail: avformat_open_input: Invalid data found when processing input (-1094995529)
    ///
    /// The first line is for the person who dropped the file (`explanation`), the second
    /// for whoever debugs it (`detail`).
    public var description: String {
        var parts: [String] = []
        if let path { parts.append(path) }
        if let streamIndex { parts.append("stream \(streamIndex)") }
        parts.append(explanation)
        return parts.joined(separator: ": ") + "\n  detail: " + detail
    }

    /// FFmpeg's account: the function that failed, its text and its code.
    public var detail: String { "\(function): \(message) (\(code))" }

    /// `av_strerror`'s text for `code` (av_err2str is a macro Swift cannot call).
    static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return "unknown FFmpeg error"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether this is the machine's failure (out of memory, an I/O error, no
    /// descriptors), not damage in the file: those are never concealed.
    public var isSystemFailure: Bool {
        [ENOMEM, EIO, ENOSPC, EMFILE, ENFILE, EAGAIN, EINTR, ESTALE, ETIMEDOUT, ENOTCONN].contains { cff_averror($0) == code }
    }

    /// AVERROR_INVALIDDATA: "invalid data found when processing input".
    package static let invalidData = cff_averror_invaliddata()
    /// AVERROR(EAGAIN): "output not ready, send more input". A result, never thrown.
    package static let again = cff_averror_eagain()
    /// AVERROR_EOF: "no more output". A result, never thrown.
    package static let endOfFile = cff_averror_eof()
    /// AVERROR_ENCODER_NOT_FOUND / DECODER_NOT_FOUND / MUXER_NOT_FOUND.
    package static let encoderNotFound = cff_averror_encoder_not_found()
    package static let decoderNotFound = cff_averror_decoder_not_found()
    package static let muxerNotFound = cff_averror_muxer_not_found()
    package static let demuxerNotFound = cff_averror_demuxer_not_found()
}

/// The one check for FFmpeg return codes: a negative `result` throws an `FFmpegError`
/// naming `function`, `path` and `stream`; otherwise the (non-negative) result is returned.
/// Callers that expect EAGAIN or EOF test for them before calling this.
@discardableResult
func check(_ result: Int32, _ function: String, path: String?, stream: Int? = nil) throws(FFmpegError) -> Int32 {
    if result < 0 { throw FFmpegError(code: result, function: function, path: path, streamIndex: stream) }
    return result
}
