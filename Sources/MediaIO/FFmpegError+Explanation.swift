internal import CDropcutFFmpeg
import Foundation

extension FFmpegError {
    /// The cause in words, for the person who dropped the file: dropcut's own `note` where
    /// the failing call set one, else what the function and code mean for a user —
    /// "Invalid data found when processing input" from `avformat_open_input` means the
    /// file is not media dropcut can read; the same code from a decoder means damage.
    public var explanation: String {
        if let note { return note }
        // The machine's failures first: they say nothing about the file.
        switch code {
        case cff_averror(ENOENT): return "the file does not exist"
        case cff_averror(EACCES), cff_averror(EPERM): return "the file cannot be opened: permission denied"
        case cff_averror(ENOMEM): return "dropcut ran out of memory"
        case cff_averror(ENOSPC), cff_averror(EDQUOT): return "the disk is full"
        case cff_averror(EIO): return "the file could not be read (an input/output error)"
        case cff_averror(EISDIR): return "is a folder, not a file"
        case FFmpegError.decoderNotFound: return "uses a codec this build of FFmpeg cannot decode"
        case FFmpegError.encoderNotFound: return "needs an encoder this build of FFmpeg does not have"
        case FFmpegError.demuxerNotFound: return "is not a video or audio file dropcut can read"
        default: break
        }
        switch Self.stage(of: function) {
        case .opening:
            if code == FFmpegError.endOfFile { return "the file is empty or cut short" }
            return function == "avformat_find_stream_info"
                ? "the file is damaged: its streams could not be read"
                : "is not a video or audio file dropcut can read"
        case .decoding: return "the file is damaged: part of it could not be decoded"
        case .writing: return "the output could not be written"
        case .other: return "FFmpeg could not process it"
        }
    }

    private enum Stage { case opening, decoding, writing, other }

    /// Which part of the work a libav* function belongs to, for `explanation`.
    private static func stage(of function: String) -> Stage {
        switch function {
        case "avformat_open_input", "avformat_find_stream_info", "av_find_input_format": return .opening
        case "av_read_frame", "avcodec_send_packet", "avcodec_receive_frame", "av_seek_frame",
             "avcodec_parameters_to_context": return .decoding
        case "avcodec_send_frame", "avcodec_receive_packet", "avformat_write_header", "av_interleaved_write_frame",
             "av_write_trailer", "avio_open", "avformat_alloc_output_context2", "avformat_new_stream": return .writing
        default: return .other
        }
    }
}
