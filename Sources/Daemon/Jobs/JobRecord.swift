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
        /// Rendering its set's temporary files in the outbox — in a worker process, so a
        /// daemon that dies now says nothing about the clip: it is no strike against it.
        case rendering
        /// A transient failure: waiting until `retryAt` to render again.
        case waiting
        /// Every file of its set (`deliverables`) is complete and
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
    /// Where the job is: changed only by the state machine's transitions (`move(by:)`), so
    /// no step, takeover or recovery can put a record where the machine would not.
    package fileprivate(set) var state: State
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
    /// What the job published, once it did: its single output's path, or its set's
    /// manifest's.
    package var output: String?
    /// Every output is a set: the files the worker renders under their temporary names
    /// (announced before it writes one), each one's inode once sealed and its published
    /// path once published, a recipe's `outputs:` with their manifest last, a single
    /// output a set of one (kind `output`, no manifest). Nil: nothing rendered yet.
    /// Records written before every output was a set (a single output's
    /// `temporaryOutput`, `temporaryInode` and `output`) are read as a set of one.
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
    /// `committing` none of whose set's files has a published name. Such a commit that keeps failing may still fail
    /// the job (nothing is left half-visible); a published output never does.
    package var isCommittingUnpublished: Bool {
        guard state == .committing, let set = deliverables else { return false }
        return set.allSatisfy { $0.output == nil }
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

    /// The step after the render this job is at, as messages name it; nil while it renders.
    package var finishStep: String? {
        switch state {
        case .committing: return "publishing"
        case .committed: return "archiving"
        case .failing: return "moving it to failed/"
        default: return nil
        }
    }

    /// Adds to `history` what ended a try of the step after the render (`finishStep`), the
    /// try numbered as `finishRetries` will count it; before the first, that the render
    /// itself succeeded — so the error file lists every try the journal shows.
    package mutating func recordFinishTry(_ outcome: String) {
        guard let step = finishStep else { return }
        let tried = finishRetries ?? 0
        if tried == 0 { note("attempt \(attempts): rendered") }
        note("\(step), try \(tried + 1): \(outcome)")
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

    /// Notes that the daemon of a job stopped without ending its step (`who`: "dropcut
    /// stopped", or "<host> stopped renewing its lease"), before the job is recovered
    /// (`JobStateMachine.Event.recovered`: back to `claimed`, to be rendered again). A
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
            return nil
        case .preparing:
            let count = min(max(0, interruptedPreparations ?? 0) + 1, Self.maximumInterruptedPreparations)
            interruptedPreparations = count
            note("attempt \(attempts): interrupted: \(who) while it was reading the clip's recipe and sidecars (\(count) of \(Self.maximumInterruptedPreparations))")
            attempts = max(0, attempts - 1)
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

extension JobRecord {
    /// Moves the record by `event` as the state machine says (`JobStateMachine.transition`)
    /// and returns the actions to perform, in order; a refused event changes nothing. The
    /// one place a record's state changes (`JobRunner.advance` performs the actions).
    package mutating func move(by event: JobStateMachine.Event) throws(JobStateMachine.Refusal) -> [JobStateMachine.Action] {
        let transition = try JobStateMachine.transition(from: state, on: event)
        state = transition.state
        return transition.actions
    }
}

// In this file: the decoder sets `state`, whose setter is this file's alone.
/// Reading a job record back — from the state folder, a lease, the coordinator — as every
/// output is now: a set. A record written before that (a single output's
/// `temporaryOutput`, `temporaryInode` and `output`: the name it would get while
/// rendering or committing, its path once published) is read as the set of one it was.
extension JobRecord {
    /// The single-output keys of records written before every output was a set.
    private enum SingleOutputKeys: String, CodingKey {
        case temporaryOutput, temporaryInode
    }

    package init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        id = try keys.decode(String.self, forKey: .id)
        folder = try keys.decode(String.self, forKey: .folder)
        input = try keys.decode(String.self, forKey: .input)
        sidecars = try keys.decode([String].self, forKey: .sidecars)
        dropped = try keys.decodeIfPresent([String: String].self, forKey: .dropped)
        state = try keys.decode(State.self, forKey: .state)
        claimedAt = try keys.decode(Date.self, forKey: .claimedAt)
        updatedAt = try keys.decode(Date.self, forKey: .updatedAt)
        attempts = try keys.decode(Int.self, forKey: .attempts)
        interruptedPreparations = try keys.decodeIfPresent(Int.self, forKey: .interruptedPreparations)
        history = try keys.decodeIfPresent([String].self, forKey: .history)
        retryAt = try keys.decodeIfPresent(Date.self, forKey: .retryAt)
        finishRetries = try keys.decodeIfPresent(Int.self, forKey: .finishRetries)
        output = try keys.decodeIfPresent(String.self, forKey: .output)
        deliverables = try keys.decodeIfPresent([DeliverableRecord].self, forKey: .deliverables)
        setSuffix = try keys.decodeIfPresent(Int.self, forKey: .setSuffix)
        arrival = try keys.decodeIfPresent(ClipArrival.self, forKey: .arrival)
        unreadableSidecars = try keys.decodeIfPresent([String].self, forKey: .unreadableSidecars)
        recipes = try keys.decode([String].self, forKey: .recipes)
        error = try keys.decodeIfPresent(String.self, forKey: .error)
        elapsedMilliseconds = try keys.decodeIfPresent(Int.self, forKey: .elapsedMilliseconds)
        speed = try keys.decodeIfPresent(Double.self, forKey: .speed)
        pid = try keys.decode(Int32.self, forKey: .pid)
        previousJobs = try keys.decodeIfPresent([String].self, forKey: .previousJobs)
        endedAtMilliseconds = try keys.decodeIfPresent(Int64.self, forKey: .endedAtMilliseconds)
        claimName = try keys.decodeIfPresent(String.self, forKey: .claimName)
        farmJob = try keys.decodeIfPresent(String.self, forKey: .farmJob)
        epoch = try keys.decodeIfPresent(Int64.self, forKey: .epoch)
        guard deliverables == nil else { return }
        let single = try decoder.container(keyedBy: SingleOutputKeys.self)
        let temporary = try single.decodeIfPresent(String.self, forKey: .temporaryOutput)
        let inode = try single.decodeIfPresent(UInt64.self, forKey: .temporaryInode)
        guard let name = output.map({ ($0 as NSString).lastPathComponent }) else { return }
        if let temporary {
            // Rendering or committing: `output` was the name it would get.
            recordSingleOutput(name, temporary: temporary, inode: inode)
            output = nil
        } else if state == .committed || state == .done {
            // Published: `output` is where.
            recordSingleOutput(name, temporary: nil, inode: inode, published: output)
        }
    }
}
