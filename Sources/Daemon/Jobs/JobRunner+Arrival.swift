import Foundation
import DropcutPipeline
import DropcutSupport

/// Whether a claimed clip is still being written (`ClipArrival`): read here, judged there.
extension JobRunner {
    /// Looks at the claimed clip now: if it changed since it was last seen — its size, time
    /// or identity (`ClipIdentity`) — (or its render found it `incomplete`, or it ends
    /// before its container does (`ClipEnding`), and it has not had its second looks),
    /// records what was seen and
    /// throws `JobFailure.arriving` — the attempt, if one was counted, given back — so the
    /// job waits one `settle` and is tried again; past `ClipArrival.maximumLooks` it fails
    /// for good, saying how to avoid it. Otherwise returns and the job goes on.
    func checkArrival(_ record: inout JobRecord, folder: FolderConfig, incomplete: Bool, attemptCounted: Bool = true) throws {
        guard let arrival = record.arrival else { return }
        var info = stat()
        // Gone or unreadable: the render's own account stands.
        let path = claimedPath(record, folder, record.input)
        guard lstat(path, &info) == 0 else { return }
        // Unreadable: size and time still tell (the render reports what it could not read).
        let seen = (info.st_mode & S_IFMT) == S_IFREG ? try? ClipIdentity.read(path) : nil
        let cut = seen.flatMap { ClipEnding.cut(head: $0.head, size: $0.identity.size) }
        let (verdict, next) = arrival.judge(size: Int64(info.st_size), modified: InboxScanner.nanoseconds(info.st_mtim),
                                            identity: seen?.identity, incomplete: incomplete || cut != nil)
        record.arrival = next
        let name = record.droppedName(record.input)?.printable ?? record.input
        switch verdict {
        case .unchanged:
            return
        case .gaveUp:
            try save(&record)
            throw JobFailure.permanent("\(name): still being written after \(ClipArrival.maximumLooks) looks, one `settle` apart; "
                                       + ClipArrival.advice, errno: nil)
        case let .grew(from, to):
            if attemptCounted { record.attempts = max(0, record.attempts - 1) }
            try save(&record)
            let change = from == to ? "its contents changed at the same size" : "\(to) bytes, \(from) when last seen"
            throw JobFailure.arriving("\(name): still being written (\(change)); it is rendered once it has settled again")
        case .lookAgain:
            if attemptCounted { record.attempts = max(0, record.attempts - 1) }
            try save(&record)
            let why = cut.map { "\(name): \($0)" } ?? "\(name): incomplete (it ends before its own index says it should)"
            throw JobFailure.arriving("\(why); looking again in case it is still being written")
        }
    }
}
