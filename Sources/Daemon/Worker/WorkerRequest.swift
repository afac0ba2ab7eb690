import Foundation

/// What a worker process is told about its job (sent as JSON on its standard input): the
/// claimed clip, the recipe files to merge, where to write. The daemon has already
/// recorded the attempt; the worker parses, probes and renders — everything an input can
/// make crash — and nothing else.
package struct WorkerRequest: Codable, Sendable, Hashable {
    package var job: String
    package var folder: String
    /// The claimed clip.
    package var input: String
    /// Recipe files, most general first; empty: the identity recipe.
    package var recipes: [String]
    /// The recipes dropped into the inbox (read without following symlinks).
    package var droppedRecipes: [String]
    package var assets: [String]
    package var outbox: String
    /// Applied by the worker to itself before it reads anything of the job.
    package var limits: WorkerLimits
    /// The job's journal fields (DROPCUT_JOB, DROPCUT_FOLDER, DROPCUT_INPUT) for what the
    /// worker logs itself.
    package var logFields: [String: String]
    /// The daemon's pid: a worker whose parent is gone exits at once.
    package var parent: Int32
    /// Not a render: the status page's thumbnail of `input` (a finished output), sent back
    /// as a `thumbnail` event. Decoded here, not in the daemon, like every decode of a file.
    package var thumbnail: Bool? = nil
    /// The inbox the clip was dropped into: what the worker logs names the claimed files as
    /// dropped there (`DroppedNameLogHandler`). Nil: named as claimed.
    package var inbox: String? = nil

    /// The request's largest accepted size on the pipe.
    static let maximumBytes = 1 << 20
}
