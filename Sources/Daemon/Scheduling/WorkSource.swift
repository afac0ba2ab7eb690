/// Where a watched folder's work comes from, by who decides it: the hosts racing for each
/// clip on the share (`SharedFolderWork`), or a coordinator that assigns it
/// (`CoordinatorWork`). Made once with the claims' coordination
/// (`ClaimCoordinations.make`); the scheduler's loop hands each folder's settled clips to
/// the one it has and never asks which one it is.
protocol WorkSource: Sendable {
    /// One pass over `folder`, whose settled clips are `settled`: starts what it may while
    /// `free` workers are left (each one it takes counted off), in `group`, and lists the
    /// rest as queued. Runs on the scheduler's actor.
    func dispatch(_ folder: FolderConfig, settled: [SettledClip], free: inout Int, scheduler: isolated Scheduler,
                  into group: inout DiscardingTaskGroup)
}
