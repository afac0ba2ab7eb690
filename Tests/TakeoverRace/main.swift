// One of several processes racing for the same expired claims (TakeoverRaceTests): it
// watches each claim's lease with the daemon's own ClaimObserver until it has expired by
// this process's clock, says "ready", reads a common start instant from its standard input
// (so all racers rename at once, however late each was started), then tries the daemon's
// takeover primitive, and prints what came of each claim.
//
//   TakeoverRace CLAIMED_DIR LEASE_TIMEOUT_MS GAP_MS JOB_PREFIX ENTRY...
//   stdin: START_AT_UNIX_NS
//
// Claim i is tried at START_AT + i * GAP_MS as job JOB_PREFIX-i. Prints "ready", then
// "ENTRY won" or "ENTRY lost" per claim; exit status 2 on a usage or system error.
import DropcutDaemon
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 6, let timeout = Int64(arguments[2]), (1...60_000).contains(timeout),
      let gap = Int64(arguments[3]), (0...10_000).contains(gap) else {
    FileHandle.standardError.write(Data("usage: TakeoverRace CLAIMED_DIR LEASE_TIMEOUT_MS GAP_MS JOB_PREFIX ENTRY... (stdin: START_AT_UNIX_NS)\n".utf8))
    exit(2)
}
let claimed = arguments[1], prefix = arguments[4], entries = Array(arguments[5...])

func unixNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

var observer = ClaimObserver(claimedDirectory: claimed, leaseTimeout: .milliseconds(timeout))
var expired: [String: ClaimObserver.Sighting] = [:]
var changes = 0
let giveUp = ContinuousClock.now + .milliseconds(timeout) + .seconds(30)
while expired.count < entries.count {
    let now = ContinuousClock.now
    for sighting in observer.observe(now: now) where entries.contains(sighting.name.description) {
        if sighting.changeSeen && sighting.since == now { changes += 1 }
        if observer.isExpired(sighting, now: now) { expired[sighting.name.description] = sighting }
    }
    if now > giveUp {
        // What this racer last saw of each claim that never expired, to tell a lease that
        // kept changing (or kept reading differently) from one that was never listed.
        let missing = Set(entries).subtracting(expired.keys)
        let seen = missing.sorted().map { entry -> String in
            guard let sighting = observer.sighting(entry) else { return "\(entry): not listed" }
            return "\(entry): \(sighting.reading), changed \(sighting.changeSeen), unchanged for \(observer.age(of: sighting, now: now)), fingerprint \(sighting.fingerprint)"
        }
        FileHandle.standardError.write(Data("the leases did not expire: \(missing)\n\(seen.joined(separator: "\n"))\n\(changes) changes seen\n".utf8))
        exit(2)
    }
    usleep(5_000)
}
// Written straight to the descriptor: the test waits for this line before it answers.
FileHandle.standardOutput.write(Data("ready\n".utf8))
guard let line = readLine(), let startAt = Int64(line) else {
    FileHandle.standardError.write(Data("no start instant on stdin\n".utf8))
    exit(2)
}
for (index, entry) in entries.enumerated() {
    let at = startAt + Int64(index) * gap * 1_000_000
    while unixNanoseconds() < at {}   // spin: the racers must rename as nearly at once as they can
    do {
        let won = try ClaimTakeover.attempt(expired[entry]!, in: claimed, as: "\(prefix)-\(index)")
        print("\(entry) \(won ? "won" : "lost")")
    } catch {
        FileHandle.standardError.write(Data("\(entry): \(error)\n".utf8))
        exit(2)
    }
}
