import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// What a database coordinator assigns: each host offers its inbox listing and is given
/// its share — expired jobs to take over, then the oldest queued clips — before any file
/// moves (`ClaimAssignment.pick`); and the clips stranded in `.dropcut/claimed/` with no
/// job left to account for them go back to the inbox.
extension DatabaseLeases: ClaimAssignment {
    /// Creates, migrates and checks the schema before anything is claimed: a schema the
    /// database refuses (`CoordinatorSchema.Refused`) stops the daemon's start; a database
    /// away is logged (once) and migrated at the first pick once it answers.
    package func prepare() throws {
        do {
            try migrate()
        } catch let refused as CoordinatorSchema.Refused {
            throw DaemonError("\(refused); dropcut does not start on it")
        }
    }

    // MARK: Claiming

    /// Offers this host's listing of `folder`'s inbox, then takes up to `slots` jobs:
    /// expired leases first (older work), then the oldest queued clips this host sees
    /// settled. Throws when the database cannot be reached (claiming waits for it).
    /// `takeOver` false (`watch --once`) leaves expired jobs to others.
    package func pick(_ folder: FolderConfig, listed: [SettledClip], slots: Int, takeOver: Bool = true) throws -> [ClaimOffer] {
        guard slots > 0 else { return [] }
        let lease = self.lease
        // The schema first when a statement found part of it missing (or at the first pick
        // after a start without the database): made again if its record lies.
        if !schemaChecked.withLock({ $0 }) { try migrate() }
        let offers = try reach("pick") {
            // Only what this host has not offered lately: a listing of hundreds is not sent
            // again at every poll (everything is, every `reofferInterval`: a clip dropped
            // again, the same bytes, is queued again only when offered after its job ended).
            let clips = listed.map { PostgresCoordinator.Clip(folder: folder.name, name: $0.name, size: $0.size,
                                                              modifiedNanoseconds: $0.modifiedNanoseconds) }
            let now = ContinuousClock.now
            let (known, fresh) = offered.withLock { offered -> (Set<PostgresCoordinator.Clip>, Bool) in
                guard let last = offered[folder.name], now - last.at < Self.reofferInterval else { return ([], true) }
                return (last.clips, false)
            }
            let new = clips.filter { !known.contains($0) }
            try database.offer(zip(new, JobRecord.newIDs(new.count)).map { ($0, $1) })
            offered.withLock { offered in
                // What the listing still holds, so the set stays as small as the inbox.
                offered[folder.name] = (Set(clips), fresh ? now : offered[folder.name]?.at ?? now)
            }
            var tickets: [ClaimOffer] = []
            do {
                while takeOver && tickets.count < slots, let held = try database.takeOverExpired(in: folder.name, lease: lease, claim: JobRecord.newID()) {
                    tickets.append(.takeOver(TakeoverCandidate(held, lease: lease)))
                }
                let byName = Dictionary(listed.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                let clock = ContinuousClock()
                while tickets.count < slots && !byName.isEmpty {
                    let began = clock.now
                    guard let held = try database.claimOldest(in: folder.name, lease: lease, claim: JobRecord.newID(), among: Array(byName.keys)) else { break }
                    guard let clip = byName[held.clip] else {
                        // Not a name asked for (cannot happen): its job ends; listed again, it is queued again.
                        try database.finish(held, as: "missing")
                        continue
                    }
                    tickets.append(.claim(clip, ClaimTicket(job: held.claim ?? JobRecord.newID(), farmJob: held.job, epoch: held.epoch,
                                                            decided: clock.now - began)))
                }
            } catch where !tickets.isEmpty {
                // The database went away mid-pick: the jobs already taken are run (the
                // next statement says the outage).
            }
            return tickets
        }
        // Clips no job accounts for go back to the inbox (not with --once: it does not
        // watch long enough to judge, as it takes nothing over).
        if takeOver { _ = putBackOrphans(in: folder) }
        return offers
    }

    // MARK: Orphans

    /// The claim folders of `folder`'s inbox that no row and no claim of this host has
    /// accounted for during a whole `lease_timeout` (`OrphanClaims`): their clips are put
    /// back in the inbox (`JobRunner.putBack`). Looked at every third of `lease_timeout`
    /// at most (a listing and one statement); none between.
    package func orphans(in folder: FolderConfig) throws -> [String] {
        let now = ContinuousClock.now, lease = self.lease
        let due = orphanWatch.withLock { watch in
            watch[folder.name].map { now - $0.looked >= max(.seconds(1), lease / 3) } ?? true
        }
        guard due else { return [] }
        // This host's claims first: one it makes after this is under a row already.
        let held = heldNames(in: folder.claimedDirectory)
        let listed = ((try? FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory)) ?? [])
            .filter { ClaimName($0)?.fences == 0 && !held.contains($0) }
        let withRows = try reach("sweep") { try database.claimsWithRows(in: folder.name, among: listed) }
        let unaccounted = Set(listed).subtracting(withRows)
        return orphanWatch.withLock { watch in
            var entry = watch[folder.name] ?? (OrphanClaims(timeout: lease), now)
            entry.looked = now
            let due = entry.claims.observe(unaccounted: unaccounted, at: now)
            watch[folder.name] = entry
            return due
        }
    }

    /// Forgets an orphan that was put back (or found accounted for).
    package func forgetOrphan(_ name: String, in folder: FolderConfig) {
        orphanWatch.withLock { watch in watch[folder.name]?.claims.forget(name) }
    }

    /// `PostgresCoordinator.putBack`, its reachability noted.
    package func putBack(claim: String, clip: PostgresCoordinator.Clip) throws -> Bool {
        try reach("sweep") { try database.putBack(claim: claim, clip: clip) }
    }

    /// `PostgresCoordinator.rename(queued:to:)`, its reachability noted.
    package func renameQueued(_ job: String, to name: String) throws {
        try reach("sweep") { try database.rename(queued: job, to: name) }
    }

    // MARK: Putting orphans back

    // A claim folder that no row of the database and no claim of any host has accounted
    // for during a whole `lease_timeout` (`orphans`) — its holder is gone and its row with
    // it (a dropped `dropcut_jobs`, a host whose state folder was lost). Nothing can take
    // it over (a takeover needs the row), so its clip goes back to the inbox, to be
    // claimed and rendered as a new drop.

    /// Puts back every orphan of `folder`'s inbox the database lets this host put back;
    /// returns the clips' names in the inbox. Failures are logged, and tried again later.
    func putBackOrphans(in folder: FolderConfig) -> [String] {
        let orphans: [String]
        do {
            orphans = try self.orphans(in: folder)
        } catch {
            return []   // logged once by DatabaseLeases
        }
        var back: [String] = []
        for name in orphans {
            do {
                if let clip = try putBack(name, folder: folder) { back.append(clip) }
                forgetOrphan(name, in: folder)
            } catch {
                var log = logger
                log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
                log.error("cannot put back the clip of claim \(name), which no job accounts for: \(error); tried again later")
            }
        }
        return back
    }

    /// Puts the clip of claim folder `name` (its sidecars with it) back in the inbox, once
    /// the database decided so (`PostgresCoordinator.putBack`, exclusive with its holder
    /// putting its row back); a name taken in the inbox meanwhile gets the next free
    /// `-1`… Returns the clip's name in the inbox; nil when the database decided otherwise,
    /// or the folder held no clip (it is removed).
    func putBack(_ name: String, folder: FolderConfig) throws -> String? {
        let directory = (folder.claimedDirectory as NSString).appendingPathComponent(name)
        try DurableFiles.requireOwnDirectory(folder.claimedDirectory)
        try DurableFiles.requireOwnDirectory(directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        guard let clip = files.first(where: { !InboxScanner.isIgnored($0) }) else {
            // Nothing to render: a claim whose clip never came in (or only hidden leftovers).
            if files.isEmpty { DurableFiles.removeTree(directory) }
            return nil
        }
        let path = (directory as NSString).appendingPathComponent(clip)
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError(errno: errno, function: "stat", path: path) }
        let key = PostgresCoordinator.Clip(folder: folder.name, name: clip, size: Int64(info.st_size),
                                           modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        guard try putBack(claim: name, clip: key) else { return nil }
        var inInbox = clip
        for file in [clip] + files.filter({ $0 != clip }) {
            let moved = try DurableFiles.move((directory as NSString).appendingPathComponent(file), into: folder.inbox, name: file, tag: name)
            if file == clip { inInbox = (moved as NSString).lastPathComponent }
        }
        if inInbox != clip { try renameQueued(name, to: inInbox) }
        DurableFiles.removeTree(directory)
        var log = logger
        log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
        log[metadataKey: "DROPCUT_INPUT"] = "\((folder.inbox as NSString).appendingPathComponent(inInbox))"
        log.warning("put \(inInbox) back in the inbox: its claim \(name) had no job in the coordinator \(database.target) and no host renewing it for \(LeaseKeeper.seconds(lease)) (its holder is gone with its row); it is claimed again as a new drop")
        return inInbox
    }
}
