/// The journal MESSAGE_IDs of the daemon's events: fixed 128-bit ids (generated once,
/// never to change), so `journalctl MESSAGE_ID=…` finds every occurrence of an event and
/// the catalog (`systemd/dropcut.catalog`) can explain it with `journalctl -x`.
package enum MessageID: String, CaseIterable, Sendable {
    /// A clip was claimed from an inbox: a job started.
    case jobClaimed = "bf20093dcb3d41c285f2219511fbdd55"
    /// A job's output is in the outbox and its original archived or deleted.
    case jobDone = "ecaeb199671d4cd4acd6c13cf8960ea0"
    /// A job failed for good: its original and an error file are in the failed folder.
    case jobFailed = "856722f8766941c2832c0abbff7934a6"
    /// A job hit a transient error (disk full, I/O error) and will be retried.
    case jobRetry = "345a7e6f913645c4a57a82a8a42d9fd4"
    /// The config was reloaded (SIGHUP).
    case configReloaded = "6db71f86bf89439ca4707aa3156d8c78"
    /// A reload found the new config invalid; the old one stays in force.
    case configRejected = "a8f9c5224fd749588f679bcbb7635093"
    /// An inbox cannot be listed or is not the folder it was (unmounted).
    case inboxUnavailable = "9ade551099db4999b996ff6bd97fe7ce"
    /// A job's worker process crashed, was killed or overran its limits: the attempt
    /// failed (retried up to the folder's retries, then the clip goes to failed/).
    case workerFailed = "9419c83c9025416aa5c5cb1e1fa3c4c2"
    /// Recovery finished and the daemon is ready (READY=1).
    case daemonReady = "102618c1d2fa411fb345b8dacbc8a688"
    /// A claim in a shared inbox whose lease had not changed for `lease_timeout` was taken
    /// over from its holder (another host, or this one before a restart), and its job resumed.
    case jobTakenOver = "0fd03b2001dc4ca39230c9fd0ea0fa9e"
    /// This daemon lost a claim to another host (it did not renew the lease in time: it
    /// was paused, hung or down) and abandoned the job: nothing of it was published here.
    case jobAbandoned = "a50954c59cbe4b89b4e15e0825c1e0a0"
    /// The database coordinator cannot be reached: claiming stops, running jobs go on, and
    /// their next irreversible step waits for it (logged once per outage).
    case coordinatorUnreachable = "88cf7d17dd084d938cdbfddf0a79d9b4"
    /// The database coordinator answers again after an outage: claiming goes on.
    case coordinatorReachable = "333880807aab4c3e9fcf271001e32dbe"
    /// The database coordinator answered with an error (permission denied, a missing
    /// table, a full disk: its SQLSTATE and message), or its schema is not what the
    /// migrations made: logged once per condition.
    case coordinatorError = "4e3b5c0f2a7d4f1c9b6e8d2a1c7f5e93"

    /// The event's name, as in the catalog and docs/daemon.md.
    package var name: String {
        switch self {
        case .jobClaimed: return "job-claimed"
        case .jobDone: return "job-done"
        case .jobFailed: return "job-failed"
        case .jobRetry: return "job-retry"
        case .configReloaded: return "config-reloaded"
        case .configRejected: return "config-rejected"
        case .inboxUnavailable: return "inbox-unavailable"
        case .workerFailed: return "worker-failed"
        case .daemonReady: return "daemon-ready"
        case .jobTakenOver: return "job-taken-over"
        case .jobAbandoned: return "job-abandoned"
        case .coordinatorUnreachable: return "coordinator-unreachable"
        case .coordinatorReachable: return "coordinator-reachable"
        case .coordinatorError: return "coordinator-error"
        }
    }
}
