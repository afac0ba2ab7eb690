/// Work on a share where nobody assigns it: expired claims are taken over (judged by
/// watching their leases, `ClaimObserver`), then each settled clip is raced for — the host
/// whose rename into its claim folder wins renders it (`JobRunner.claim`).
struct SharedFolderWork: WorkSource {
    func dispatch(_ folder: FolderConfig, settled: [SettledClip], free: inout Int, scheduler: isolated Scheduler,
                  into group: inout DiscardingTaskGroup) {
        // Expired claims before new clips: they are older work than anything still in
        // the inbox. (The inbox is listed first: an inbox that is away has no claims to
        // judge either.)
        scheduler.observeClaims(folder, free: &free, into: &group)
        // Forget failed claims of clips no longer there (removed, or claimed elsewhere).
        let listed = Set(settled.map { scheduler.claimKey(folder.name, $0.name) })
        let prefix = scheduler.claimKey(folder.name, "")
        scheduler.jobs.blocked = scheduler.jobs.blocked.filter { !$0.key.hasPrefix(prefix) || listed.contains($0.key) }
        for clip in settled {
            let key = scheduler.claimKey(folder.name, clip.name)
            if scheduler.jobs[key] != nil { continue }   // its claim is in flight
            if let blocked = scheduler.jobs.blocked[key] {
                // A claim that failed is tried again at the next poll; with --once, not
                // at all (it counted as a failure, and the run must end).
                if scheduler.once || blocked.until > .now { continue }
            }
            if free > 0 && !scheduler.loop.isStopping {
                scheduler.startClaim(clip, folder, in: &group)
                free -= 1
            } else {
                scheduler.jobs.queued.append(DaemonStatus.Queued(folder: folder.name, input: clip.name, since: clip.modified))
            }
        }
    }
}
