import Foundation

/// The daemon's configuration (docs/daemon.md), validated: every folder's inbox
/// exists, its outbox is not inside it, its recipe loads. Built by `ConfigLoader`.
public struct DaemonConfig: Sendable, Hashable {
    /// The file it was read from (reloaded from there on SIGHUP).
    public var path: String
    /// Job records, the status file and the lock live here.
    public var stateDirectory: String
    /// How often each inbox is listed (inotify may wake the scanner sooner).
    package var pollInterval: Duration
    /// Size, mtime and ctime unchanged this long = the file has fully arrived.
    package var settle: Duration
    /// Jobs rendered at once.
    package var workers: Int
    /// How long SIGTERM lets running jobs finish before cancelling them (their inputs stay
    /// claimed and are redone at the next start). The unit's TimeoutStopSec must be longer.
    package var stopTimeout: Duration
    /// The wait before the first retry of a transient failure; doubled for each further one.
    package var retryDelay: Duration
    /// A claim whose lease has not changed this long (by this daemon's clock) is taken
    /// over: its holder is taken for dead, paused or cut off. Each holder renews its leases
    /// every third of it. Hosts sharing an inbox should use the same value.
    package var leaseTimeout: Duration = .seconds(60)
    /// What each job's worker process may use, and how long it may take.
    package var limits = WorkerLimits()
    public var folders: [FolderConfig]
    /// The HTTP listener (metrics, status API and page); nil: nothing listens.
    package var http: HTTPConfig?
    /// Where job events are posted; empty: nothing is sent (no delivery service runs).
    package var webhooks: [WebhookConfig] = []
    /// The PostgreSQL server that decides claims, leases, fences and output names for a
    /// farm (docs/scale-out.md); nil: this host's files and the shared folder decide.
    package var coordinator: CoordinatorConfig?

    package init(path: String, stateDirectory: String, pollInterval: Duration = .seconds(2), settle: Duration = .seconds(3),
                workers: Int = 1, stopTimeout: Duration = .seconds(30), retryDelay: Duration = .seconds(5),
                folders: [FolderConfig]) {
        self.path = path
        self.stateDirectory = stateDirectory
        self.pollInterval = pollInterval
        self.settle = settle
        self.workers = workers
        self.stopTimeout = stopTimeout
        self.retryDelay = retryDelay
        self.folders = folders
    }

    /// How often leases are renewed: a third of `leaseTimeout`, so two renewals can be
    /// late before the claim is taken over.
    package var leaseRenewal: Duration { leaseTimeout / 3 }

    /// The folder named `name`.
    package func folder(named name: String) -> FolderConfig? {
        folders.first { $0.name == name }
    }
}

/// One watched pipeline: an inbox, where results and failures go, and its recipe.
public struct FolderConfig: Sendable, Hashable {
    /// What happens to an original once its output is safely in the outbox.
    package enum AfterSuccess: String, Sendable, Hashable, CaseIterable {
        case archive, delete
    }

    public var name: String
    public var inbox: String
    public var outbox: String
    package var failed: String
    package var afterSuccess: AfterSuccess
    /// Where originals go with `after_success: archive`.
    package var archive: String?
    /// The folder's default recipe; nil: the identity recipe (orientation fixed, re-encoded).
    package var recipe: String?
    package var assets: [String]
    /// Retries of a transient failure (disk full, I/O error) before the clip is failed.
    package var retries: Int
    /// Permission bits of outputs, archived originals and error files.
    package var outputMode: mode_t
    /// Group given to outputs (nil: the daemon's own).
    package var outputGroup: gid_t?

    package init(name: String, inbox: String, outbox: String, failed: String, afterSuccess: AfterSuccess = .archive,
                archive: String? = nil, recipe: String? = nil, assets: [String] = [], retries: Int = 2,
                outputMode: mode_t = 0o644, outputGroup: gid_t? = nil) {
        self.name = name
        self.inbox = inbox
        self.outbox = outbox
        self.failed = failed
        self.afterSuccess = afterSuccess
        self.archive = archive
        self.recipe = recipe
        self.assets = assets
        self.retries = retries
        self.outputMode = outputMode
        self.outputGroup = outputGroup
    }

    /// `<inbox>/.dropcut`: the daemon's own corner of the inbox, never scanned.
    package var workDirectory: String { (inbox as NSString).appendingPathComponent(".dropcut") }
    /// `<inbox>/.dropcut/claimed`: one folder per claimed job.
    package var claimedDirectory: String { (workDirectory as NSString).appendingPathComponent("claimed") }
}
