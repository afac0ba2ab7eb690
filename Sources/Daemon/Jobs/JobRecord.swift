import Foundation
import DropcutPipeline

/// What the daemon knows of one clip it claimed, written to `<state_dir>/jobs/<id>.json`
/// before every step that changes the files, so a crash at any point can be resumed.
package struct JobRecord: Codable, Sendable, Hashable {
    /// Where the job is. The files are always consistent with the state: the state is
    /// written (fsynced) before the files move into the next one.
    package enum State: String, Codable, Sendable, Hashable, CaseIterable {
        /// About to rename the clip into the claimed folder (which exists, empty).
        case claiming
        /// The clip (and its sidecars) are in the claimed folder; nothing rendered yet.
        case claimed
        /// The daemon itself is reading the clip's files for an attempt (listing its recipe
        /// and sidecars, looking at the clip) before its worker starts. A daemon that dies
        /// here may have been brought down by the clip: such deaths are counted
        /// (`interruptedPreparations`), and bounded.
        case preparing
        /// Rendering into `temporaryOutput` in the outbox — in a worker process, so a
        /// daemon that dies now says nothing about the clip: it is no strike against it.
        case rendering
        /// A transient failure: waiting until `retryAt` to render again.
        case waiting
        /// `temporaryOutput` (or every file of a set: `deliverables`) is complete and
        /// fsynced; being linked to its final name(s).
        case committing
        /// The output is at `output`; the original is being archived or deleted.
        case committed
        /// The original and its error file are being moved to the failed folder.
        case failing
        case done
        case failed
        /// Its claim was taken over by another host (this one stopped renewing its lease:
        /// it was paused, hung or down): nothing of it was published or moved from here.
        case abandoned
    }

    package var id: String
    package var folder: String
    /// The clip's file name as it was dropped.
    package var input: String
    /// Sidecars claimed with it (`clip.yaml`, `clip.AAE`).
    package var sidecars: [String]
    /// The names as dropped of the files claimed under another name — their printable
    /// form (`RawFileName`: not UTF-8, control characters or backslashes), shortened when
    /// that did not fit — by claimed name: the archive and failed/ give them back their
    /// bytes. Nil or missing: every name is as dropped.
    package var dropped: [String: String]?
    package var state: State
    package var claimedAt: Date
    package var updatedAt: Date
    /// Renders started (1 for the first), counted before anything of the job is read; an
    /// attempt the daemon did not survive while its worker rendered is given back.
    package var attempts: Int = 0
    /// How many times the daemon died while it was preparing an attempt (`preparing`):
    /// at `maximumInterruptedPreparations` the clip is quarantined. Nil: none.
    package var interruptedPreparations: Int?
    /// What ended each attempt that did not produce the output ("attempt 2: killed by
    /// signal 11 (SIGSEGV) after 3.1 s while rendering"), oldest first; nil: none yet
    /// (records written before it existed decode too).
    package var history: [String]?
    package var retryAt: Date?
    /// Transient failures of the steps after the render (publishing, archiving, moving to
    /// failed/), counted for their backoff: the render's `attempts` no longer move there.
    /// Nil: none.
    package var finishRetries: Int?
    package var temporaryOutput: String?
    /// The finished temporary output's inode: finds its final name after a crash mid-commit.
    package var temporaryInode: UInt64?
    package var output: String?
    /// A recipe with `outputs:`: every file of the set, the manifest last (`temporaryOutput`,
    /// `temporaryInode` and `output` then stay nil until the set is published, when
    /// `output` is the manifest's path). Nil or missing: a single output.
    package var deliverables: [DeliverableRecord]?
    /// The number every name of the set gets (`-1`, `-2`...; 0: the names as they are),
    /// recorded before the first file is published so that a crash resumes with the same
    /// one: a set's names always match.
    package var setSuffix: Int?
    /// The clip's size and modification time as last seen, and how often it was found
    /// still being written (`ClipArrival`). Nil: records written before it existed.
    package var arrival: ClipArrival?
    /// Sidecars that lay beside the clip but are not regular files (`SettledClip.
    /// unreadableSidecars`), left in the inbox: the job fails naming them. Nil: none.
    package var unreadableSidecars: [String]?
    /// The recipe files merged for this job, most general first ("identity" when none).
    package var recipes: [String] = []
    package var error: String?
    /// How long the render took and how fast it was against the output's duration.
    package var elapsedMilliseconds: Int?
    package var speed: Double?
    /// The process that works on it (for `dropcut status`).
    package var pid: Int32 = getpid()
    /// The jobs that held this clip's claim before this one, oldest first, when it was
    /// taken over from other hosts (their ids tag what they may have left half-moved).
    package var previousJobs: [String]?
    /// When the job's end (done or failed) was first announced, in Unix milliseconds: its
    /// webhook event's timestamp, kept so that the event written again when the step is
    /// rerun after a crash is byte for byte the one written before. Nil: no webhooks, or
    /// not ended yet.
    package var endedAtMilliseconds: Int64?
    /// The claim folder's name in `<inbox>/.dropcut/claimed/` once a fence has renamed it
    /// (`<id>.committing-1`); nil: the job id.
    package var claimName: String?
    /// Where a coordinator assigns claims: the farm's job this claim is of (its row, kept
    /// across takeovers; nil without one).
    package var farmJob: String?
    /// Where a coordinator assigns claims: the epoch this claim or takeover got; every
    /// fence is checked against it.
    package var epoch: Int64?

    /// Whether nothing of the output is published yet although it is rendered: a job
    /// `committing` whose single output still has its temporary name, or none of whose
    /// set's files has a published name. Such a commit that keeps failing may still fail
    /// the job (nothing is left half-visible); a published output never does.
    package var isCommittingUnpublished: Bool {
        guard state == .committing else { return false }
        if let set = deliverables { return set.allSatisfy { $0.output == nil } }
        return temporaryOutput != nil
    }

    package init(id: String, folder: String, input: String, sidecars: [String], state: State, now: Date = Date()) {
        self.id = id
        self.folder = folder
        self.input = input
        self.sidecars = sidecars
        self.state = state
        self.claimedAt = now
        self.updatedAt = now
    }

    /// A new job id: UTC time to the second and 48 random bits, so ids sort by claim time
    /// and never collide between processes or hosts sharing an inbox.
    package static func newID(now: Date = Date()) -> String {
        newIDs(1, now: now)[0]
    }

    /// `count` new job ids of one instant (a listing offered to the coordinator at once).
    package static func newIDs(_ count: Int, now: Date = Date()) -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now)
        return (0..<max(1, count)).map { _ in
            "\(stamp)-\((0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined())"
        }
    }

    /// Adds what ended the current attempt to `history`.
    package mutating func recordAttempt(_ outcome: String) {
        note("attempt \(attempts): \(outcome)")
    }

    /// The most lines `history` keeps. Daemon deaths mid-render are noted but not counted,
    /// so without a bound a daemon killed again and again would grow the record past what
    /// a record read back may hold (`maximumListed`) and make it unreadable.
    static let maximumHistory = 100

    /// Adds `line` to `history`, keeping the first line and the newest ones.
    mutating func note(_ line: String) {
        var lines = (history ?? []) + [line]
        if lines.count > Self.maximumHistory {
            lines = [lines[0]] + lines.suffix(Self.maximumHistory - 1)
        }
        history = lines
    }

    /// After this many daemon deaths while preparing its attempts, a clip is quarantined
    /// (whatever `retries` is: these are not renders).
    package static let maximumInterruptedPreparations = 3

    /// Puts a job whose daemon stopped without ending its step (`who`: "dropcut stopped",
    /// or "<host> stopped renewing its lease") back to `claimed`, to be rendered again. A
    /// render stopped with its daemon is not counted against the clip: it ran in a worker,
    /// and an OOM kill of the daemon, `systemctl kill`, a power cut or an upgrade say
    /// nothing about the clip. A death while the daemon itself read the clip's files (`preparing`) is
    /// counted in `interruptedPreparations`. Returns the reason to quarantine the clip
    /// when that reached its bound, else nil.
    package mutating func interrupted(_ who: String) -> String? {
        switch state {
        case .rendering:
            note("attempt \(attempts): interrupted: \(who) while its worker was rendering (not counted against the clip)")
            attempts = max(0, attempts - 1)
            state = .claimed
            return nil
        case .preparing:
            let count = min(max(0, interruptedPreparations ?? 0) + 1, Self.maximumInterruptedPreparations)
            interruptedPreparations = count
            note("attempt \(attempts): interrupted: \(who) while it was reading the clip's recipe and sidecars (\(count) of \(Self.maximumInterruptedPreparations))")
            attempts = max(0, attempts - 1)
            state = .claimed
            guard count < Self.maximumInterruptedPreparations else {
                return "\(who) \(count) times while it was reading this clip's recipe and sidecars, before any render: quarantined so that it cannot bring dropcut down again"
            }
            return nil
        default:
            return nil
        }
    }

    /// The name `claimed` (the input or a sidecar) had in the inbox, when it was claimed
    /// under another one.
    package func droppedName(_ claimed: String) -> RawFileName? {
        droppedNames[claimed]
    }

    /// `dropped`, read back: the names as dropped by claimed name — plain names only (a
    /// record read back is checked for that when parsed; this never yields a path).
    package var droppedNames: [String: RawFileName] {
        (dropped ?? [:]).compactMapValues { RawFileName(printable: $0) }.filter { $0.value.isPlainName }
    }

    /// Whether the job has ended (its files are where they will stay).
    package var isFinished: Bool { state == .done || state == .failed || state == .abandoned }

    /// The tags of the hidden names this clip's moves may have left half-done in the
    /// archive or failed/ (`.moving-<tag>`): this job's, and its earlier holders'.
    package var moveTags: [String] { [id] + (previousJobs ?? []).reversed() }

    /// The claim folder's current name.
    package var claim: ClaimName { claimName.flatMap(ClaimName.init) ?? ClaimName(job: id) }
}
