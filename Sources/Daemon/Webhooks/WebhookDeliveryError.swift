/// Why one attempt to deliver an event failed: the endpoint, what failed, and the cause in
/// words (curl's own text for transport errors).
package struct WebhookDeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Cause: Sendable, Hashable {
        /// The receiver answered, but not with a 2xx (a 3xx too: redirects are not followed).
        case status(Int)
        /// No answer: connection refused, timeout, TLS, DNS… (`curl_easy_strerror`'s text,
        /// and curl's more specific message when it has one: it names times and ports).
        case transport(String, detail: String?)
        /// The request could not be set up (an option libcurl refused).
        case setup(String)
        /// Stopped at shutdown.
        case cancelled
    }

    package var url: String
    /// The libcurl call that failed (`curl_easy_perform`, `curl_easy_setopt`…).
    package var function: String
    package var cause: Cause

    package init(url: String, function: String, cause: Cause) {
        self.url = url
        self.function = function
        self.cause = cause
    }

    /// The kind of cause, without the details that change from one attempt to the next
    /// (curl's "after 1 ms"): failed attempts are logged again only when it changes.
    package var causeKind: String {
        if case let .transport(text, _) = cause { return text }
        return causeText
    }

    /// The cause in words.
    package var causeText: String {
        switch cause {
        case let .status(code): "the receiver answered HTTP \(code)\((300..<400).contains(code) ? " (redirects are not followed)" : "")"
        case let .transport(text, detail): detail.map { "\(text): \($0)" } ?? text
        case let .setup(text): text
        case .cancelled: "stopped at shutdown"
        }
    }

    package var description: String { "POST \(url): \(causeText) (\(function))" }
}
