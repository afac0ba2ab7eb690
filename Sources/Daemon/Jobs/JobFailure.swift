import Foundation
import DropcutPipeline

/// Why a job did not produce its output, sorted by what to do about it.
package enum JobFailure: Error, Sendable, CustomStringConvertible {
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
    /// The clip changed since it was claimed, or ends before its own index says it should:
    /// it is still being written (a copy that paused longer than `settle`). It waits, the
    /// attempt given back, and is rendered once it has settled again — a bounded number of
    /// times (`ClipArrival`).
    case arriving(String)
    /// Stopped by shutdown: the input stays claimed and is redone at the next start.
    case cancelled
    /// The clip's claim was taken over by another host while this one did not renew its
    /// lease (paused, hung): the job is abandoned here, with nothing published or moved.
    case lost(String)

    /// Sorts any error a job can meet: its own, else as the pipeline sorts render errors.
    package static func classify(_ error: any Error) -> JobFailure {
        if let failure = error as? JobFailure { return failure }
        switch RenderFailure.classify(error) {
        case .cancelled: return .cancelled
        case let .transient(reason, code): return .transient(reason, errno: code)
        case let .permanent(reason, code): return .permanent(reason, errno: code)
        }
    }

    package var reason: String {
        switch self {
        case let .permanent(reason, _), let .transient(reason, _), let .unavailable(reason), let .lost(reason),
             let .arriving(reason): return reason
        case .cancelled: return "cancelled by shutdown"
        }
    }

    package var errno: Int32? {
        switch self {
        case let .permanent(_, code), let .transient(_, code): return code
        case .unavailable: return ENOTCONN
        case .cancelled, .lost, .arriving: return nil
        }
    }

    package var description: String { reason }
}
