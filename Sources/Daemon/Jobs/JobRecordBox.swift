import Synchronization

/// A job record lent to a step running on another thread.
final class JobRecordBox: Sendable {
    let record: Mutex<JobRecord>
    init(_ record: JobRecord) { self.record = Mutex(record) }
}
