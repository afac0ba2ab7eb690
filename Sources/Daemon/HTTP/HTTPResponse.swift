import Foundation

/// What `APIRouter` answers: a whole body, or a stream of server-sent events.
package struct HTTPResponse: Sendable {
    package enum Body: Sendable {
        case bytes([UInt8])
        /// Chunks written as they come until the stream ends or the client goes.
        case events(AsyncStream<[UInt8]>)
    }

    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    package init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Every response says what it is and forbids framing and sniffing; nothing is fetched
    /// from elsewhere (the page's scripts and styles are inline).
    static let common: [(String, String)] = [
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "same-origin"),   // not no-referrer: Chromium then sends `Origin: null` with the page's own form posts
        ("cache-control", "no-store"),
    ]

    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")] + common, body: .bytes(Array((text + "\n").utf8)))
    }

    static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "application/json")] + common, body: .bytes(Array(text.utf8)))
    }

    static func html(_ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            ("content-type", "text/html; charset=utf-8"),
            ("content-security-policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ] + common + headers, body: .bytes(Array(text.utf8)))
    }

    /// The reason phrase of the statuses the listener answers with.
    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 303: "See Other"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
