import Foundation
import MediaIO
import Recipe
import Render

/// Why a job did not produce its output, sorted by what to do about it.
public enum JobFailure: Error, Sendable, CustomStringConvertible {
    /// The clip or its recipe can never render (bad recipe, undecodable media): it goes
    /// to the failed folder at once.
    case permanent(String, errno: Int32?)
    /// The machine could not do it now (disk full, I/O error, out of descriptors): retried
    /// with backoff, then failed.
    case transient(String, errno: Int32?)
    /// A folder the job needs is not there (an outbox, failed or archive folder on a
    /// share that is unmounted): retried with backoff for as long as it takes, without
    /// counting an attempt — it is not the clip's fault.
    case unavailable(String)
    /// Stopped by shutdown: the input stays claimed and is redone at the next start.
    case cancelled
    /// The clip's claim was taken over by another host while this one did not renew its
    /// lease (paused, hung): the job is abandoned here, with nothing published or moved.
    case lost(String)

    /// errno values that say "try again later", not "this clip is bad": a full or busy
    /// machine, and a network share that is briefly away (read-only while it remounts,
    /// not connected, host down, stale handle, timed out).
    static let transientErrnos: Set<Int32> = [ENOSPC, EDQUOT, EIO, EMFILE, ENFILE, ENOMEM, EAGAIN, EBUSY, ETIMEDOUT, ESTALE,
                                              EROFS, ENOTCONN, EHOSTDOWN, EHOSTUNREACH, ENETDOWN, ENETUNREACH, ECONNRESET]

    /// Sorts any error a job can meet.
    public static func classify(_ error: any Error) -> JobFailure {
        switch error {
        case let failure as JobFailure:
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

    public var reason: String {
        switch self {
        case let .permanent(reason, _), let .transient(reason, _), let .unavailable(reason), let .lost(reason): return reason
        case .cancelled: return "cancelled by shutdown"
        }
    }

    public var errno: Int32? {
        switch self {
        case let .permanent(_, code), let .transient(_, code): return code
        case .unavailable: return ENOTCONN
        case .cancelled, .lost: return nil
        }
    }

    public var description: String { reason }
}
