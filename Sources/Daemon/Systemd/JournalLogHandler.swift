import Foundation
import Logging

/// A swift-log handler that writes each message to journald as a structured entry
/// (`sd_journal_sendv`): MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC, and the
/// metadata as fields. Metadata keys written as journal field names (`DROPCUT_JOB`,
/// `MESSAGE_ID`, `ERRNO`) are sent as they are; others become `DROPCUT_<KEY>`.
///
/// When standard error is not already the journal (no `JOURNAL_STREAM` match, so run by
/// hand or in a test) it also writes a human-readable line there; under systemd it writes
/// nothing to stderr, so nothing reaches the journal twice.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    package let identifier: String
    /// Whether entries go to journald (false: only stderr lines).
    package let toJournal: Bool
    /// Whether human-readable lines go to stderr.
    package let toStandardError: Bool

    public init(identifier: String = "dropcut", toJournal: Bool = true, toStandardError: Bool = !JournalLogHandler.standardErrorIsJournal()) {
        self.identifier = identifier
        self.toJournal = toJournal
        self.toStandardError = toStandardError
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// systemd sets `JOURNAL_STREAM=<dev>:<inode>` for a service whose stderr is connected
    /// to the journal; it matches only if fd 2 is still that stream.
    public static func standardErrorIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// syslog priorities (sd-journal's PRIORITY field).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// A metadata key as a journal field name: upper case letters, digits and `_`, not
    /// starting with `_` (those are trusted fields journald sets itself).
    static func fieldName(_ key: String) -> String {
        let isFieldName = !key.isEmpty && !key.hasPrefix("_") && key.utf8.allSatisfy {
            ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 95
        }
        if isFieldName { return key }
        let cleaned = String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return "DROPCUT_" + cleaned
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let more = event.metadata { merged.merge(more) { _, new in new } }
        let message = event.message.description
        if toJournal {
            var fields: [(name: String, value: String)] = [
                ("MESSAGE", message),
                ("PRIORITY", String(Self.priority(event.level))),
                ("SYSLOG_IDENTIFIER", identifier),
                ("CODE_FILE", event.file),
                ("CODE_LINE", String(event.line)),
                ("CODE_FUNC", event.function),
            ]
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                fields.append((Self.fieldName(key), "\(value)"))
            }
            // No journald (a container, a test without one): the stderr line still says it.
            try? Journal.send(fields)
        }
        if toStandardError {
            var line = "\(identifier)[\(getpid())]: \(event.level): \(message)"
            let details = merged.filter { $0.key != "MESSAGE_ID" }.sorted { $0.key < $1.key }
            if !details.isEmpty {
                line += " (" + details.map { "\(Self.fieldName($0.key))=\($0.value)" }.joined(separator: " ") + ")"
            }
            Self.writeLine(line)
        }
    }

    /// One write(2) per line, so lines from several threads never interleave mid-line.
    static func writeLine(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }
}
