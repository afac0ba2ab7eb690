import Foundation
import DropcutMediaIO
import DropcutRender
import DropcutSupport

/// An error met while preparing or rendering a production, sorted by what to do about
/// it: the pipeline knows its own errors (FFmpeg's, the export's, a thread that could not
/// start, a failed system call), so a front end sorts them without importing the engine.
public enum RenderFailure: Error, Sendable, Hashable {
    /// Stopped because the task was cancelled (shutdown, Ctrl-C).
    case cancelled
    /// The machine could not do it now (disk full, I/O error, out of memory or
    /// descriptors, a share briefly away): worth trying again later.
    case transient(String, errno: Int32?)
    /// This input can never render as asked (bad recipe, undecodable media).
    case permanent(String, errno: Int32?)

    /// errno values that say "try again later", not "this clip is bad": a full or busy
    /// machine, and a network share that is briefly away (read-only while it remounts,
    /// not connected, host down, stale handle, timed out).
    public static let transientErrnos: Set<Int32> = [ENOSPC, EDQUOT, EIO, EMFILE, ENFILE, ENOMEM, EAGAIN, EBUSY, ETIMEDOUT,
                                                     ESTALE, EROFS, ENOTCONN, EHOSTDOWN, EHOSTUNREACH, ENETDOWN, ENETUNREACH,
                                                     ECONNRESET]

    /// Whether `error` says the input ends before its own index says it should (an MP4/MOV
    /// without its moov box, or cut short): what a file still being written looks like.
    public static func isIncompleteFile(_ error: any Error) -> Bool {
        (error as? FFmpegError)?.isIncompleteFile ?? false
    }

    /// Sorts any error `Production.prepare` or `export` can throw; an error the pipeline
    /// does not know (a recipe's, a front end's own) is permanent, described as it is.
    public static func classify(_ error: any Error) -> RenderFailure {
        switch error {
        case let failure as RenderFailure:
            return failure
        case ExportError.cancelled, is CancellationError:
            return .cancelled
        case let error as FFmpegError:
            // FFmpeg returns AVERROR(e) = -e for system errors.
            let code = -error.code
            return transientErrnos.contains(code) ? .transient(error.description, errno: code)
                : .permanent(error.description, errno: code > 0 && code < 4096 ? code : nil)
        case let error as DetachedThread.StartError:
            return .transient(error.description, errno: error.errno)
        case let error as SystemError:
            return transientErrnos.contains(error.errno) ? .transient(error.description, errno: error.errno)
                : .permanent(error.description, errno: error.errno)
        default:
            return .permanent(String(describing: error), errno: nil)
        }
    }
}
