import Foundation
import DropcutSupport

/// Whether a claimed clip is still being written (`ClipArrival`): read here, judged there.
extension JobRunner {
    /// Looks at the claimed clip now: if it changed since it was last seen (or its render
    /// found it `incomplete` and it has not had a second look), records what was seen and
    /// throws `JobFailure.arriving` — the attempt, if one was counted, given back — so the
    /// job waits one `settle` and is tried again; past `ClipArrival.maximumLooks` it fails
    /// for good, saying how to avoid it. Otherwise returns and the job goes on.
    func checkArrival(_ record: inout JobRecord, folder: FolderConfig, incomplete: Bool, attemptCounted: Bool = true) throws {
        guard let arrival = record.arrival else { return }
        var info = stat()
        // Gone or unreadable: the render's own account stands.
        guard lstat(claimedPath(record, folder, record.input), &info) == 0 else { return }
        let (verdict, next) = arrival.judge(size: Int64(info.st_size), modified: InboxScanner.nanoseconds(info.st_mtim),
                                            incomplete: incomplete)
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
            throw JobFailure.arriving("\(name): still being written (\(to) bytes, \(from) when last seen); it is rendered once it has settled again")
        case .lookAgain:
            if attemptCounted { record.attempts = max(0, record.attempts - 1) }
            try save(&record)
            throw JobFailure.arriving("\(name): incomplete (it ends before its own index says it should); looking again in case it is still being written")
        }
    }
}
