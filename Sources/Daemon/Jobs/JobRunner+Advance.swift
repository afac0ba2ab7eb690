import Foundation
import DropcutPipeline
import DropcutSupport

/// Performing what the job's state machine (`JobStateMachine`) decides: the one place a
/// step of a job moves its record from one state to another.
extension JobRunner {
    /// Moves `record` by `event` and performs the transition's actions in order. A refused
    /// event (`JobStateMachine.Refusal`) changes nothing; an action that fails (a save)
    /// leaves the record in its new state, as the files will be found.
    func advance(_ record: inout JobRecord, _ event: JobStateMachine.Event, folder: FolderConfig) throws {
        for action in try record.move(by: event) {
            switch action {
            case .countAttempt:
                record.attempts += 1
                metrics.attemptStarted(folder: folder.name)
            case .giveBackAttempt:
                record.attempts = max(0, record.attempts - 1)
            case .countFinishRetry:
                record.finishRetries = (record.finishRetries ?? 0) + 1
            case .save:
                try save(&record)
            case .saveLocally:
                try store.save(&record)
            case .endClaim:
                // The coordination first (a coordinator hears the job ended), then the
                // claim given up, then its folder: no lease can appear in it again.
                keeper.ended(record, missing: false)
                keeper.release(record.id)
                DurableFiles.removeTree(claimedDirectory(record, folder))
                try? DurableFiles.sync(folder.claimedDirectory)
            }
        }
    }
}
