import Foundation
import DropcutSupport

/// The status page's thumbnails, decoded in a worker process (`dropcut worker`, as renders
/// are) under the render's limits: a finished output is still a file a decoder reads, and
/// a decoder crash, a hang or a memory blow-up must end that process, not the daemon.
package enum ThumbnailWorker {
    /// Why there is no thumbnail.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// A thumbnail is a first frame: this long at most, whatever the renders may take.
    static let timeoutSeconds: Double = 30

    /// The JPEG of `path`'s first frame (`Thumbnail.jpeg` in the worker).
    package static func jpeg(of path: String, job: String, limits: WorkerLimits,
                             executable: String = "/proc/self/exe") async throws -> [UInt8] {
        var limits = limits
        limits.timeoutMinimumSeconds = Self.timeoutSeconds
        limits.timeoutFactor = 0
        let request = WorkerRequest(job: job, folder: "", input: path, recipes: [], droppedRecipes: [], assets: [],
                                    outbox: (path as NSString).deletingLastPathComponent, limits: limits,
                                    logFields: ["DROPCUT_JOB": job], parent: getpid(), thumbnail: true)
        let exit = try await BlockingWork.run("dropcut-thumb") { [limits] cancellation in
            // Spawned and reaped on this thread (the worker's PR_SET_PDEATHSIG follows it).
            let worker = try WorkerProcess(executable: executable, request: request)
            return worker.supervise(limits: limits, cancellation: cancellation) { _ in }
        }
        if exit.stoppedBy == nil, exit.status == 0, case let .thumbnail(data)? = exit.outcome { return [UInt8](data) }
        if exit.stoppedBy == nil, case let .failed(_, reason, _, _)? = exit.outcome { throw Failure(description: reason) }
        throw Failure(description: "the thumbnail worker \(exit.summary(limits: limits))")
    }
}
