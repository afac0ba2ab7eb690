import Logging

/// What a worker logs, with the claimed files named as they were dropped: the worker reads
/// the clip and its sidecars in the claim folder (`inbox/.dropcut/claimed/<job>/`), so the
/// parsers and the engine name that folder; a message names the file as the user dropped
/// it (`talk.srt:6: …`, as failure reasons do), and a metadata value its path in the inbox.
struct DroppedNameLogHandler: LogHandler {
    private var inner: any LogHandler
    private let claimed: String
    private let inbox: String

    init(_ inner: any LogHandler, claimed: String, inbox: String) {
        self.inner = inner
        self.claimed = claimed.hasSuffix("/") ? claimed : claimed + "/"
        self.inbox = inbox.hasSuffix("/") ? inbox : inbox + "/"
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.replacingOccurrences(of: claimed, with: ""))"
        if var metadata = event.metadata {
            for (key, value) in metadata {
                if case let .string(text) = value, text.contains(claimed) {
                    metadata[key] = .string(text.replacingOccurrences(of: claimed, with: inbox))
                }
            }
            event.metadata = metadata
        }
        inner.log(event: event)
    }
}
