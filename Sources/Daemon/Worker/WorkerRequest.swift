import Foundation

/// What a worker process is told about its job (sent as JSON on its standard input): the
/// claimed clip, the recipe files to merge, where to write. The daemon has already
/// recorded the attempt; the worker parses, probes and renders — everything an input can
/// make crash — and nothing else.
public struct WorkerRequest: Codable, Sendable, Hashable {
    public var job: String
    public var folder: String
    /// The claimed clip.
    public var input: String
    /// Recipe files, most general first; empty: the identity recipe.
    public var recipes: [String]
    /// The recipes dropped into the inbox (read without following symlinks).
    public var droppedRecipes: [String]
    public var assets: [String]
    public var outbox: String
    /// Applied by the worker to itself before it reads anything of the job.
    public var limits: WorkerLimits
    /// The job's journal fields (DROPCUT_JOB, DROPCUT_FOLDER, DROPCUT_INPUT) for what the
    /// worker logs itself.
    public var logFields: [String: String]
    /// The daemon's pid: a worker whose parent is gone exits at once.
    public var parent: Int32

    /// The request's largest accepted size on the pipe.
    static let maximumBytes = 1 << 20
}
