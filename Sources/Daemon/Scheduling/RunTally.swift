/// What this run of the daemon has ended: jobs finished, and jobs that failed for good
/// (`watch --once` exits 1 when there are any).
struct RunTally {
    var completed = 0
    var failures = 0
}
