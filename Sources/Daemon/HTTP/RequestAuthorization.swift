import Foundation
import DropcutSupport
import DropcutDigest

/// Who may do what on the listener (docs/connect.md, "Security"):
/// - With a token configured, every request but the login page's carries it: an
///   `Authorization: Bearer <token>` header, or the session cookie the login form sets.
/// - Without one (a local listener only: the config refuses anything else), reading is
///   open to this machine, and nothing may change anything: a mutating request needs the
///   token, so retrying needs one configured.
/// - A mutating request must also come from the page itself: its `Origin` (when sent) is
///   this listener's, and `Sec-Fetch-Site` (when sent) is `same-origin` — a page elsewhere
///   cannot make a logged-in browser retry clips (CSRF).
package struct RequestAuthorization: Sendable {
    package let token: String?

    package init(token: String?) {
        self.token = token
    }

    /// The session cookie's name and value: a digest of the token, so the cookie is not
    /// the token itself.
    package static let cookieName = "dropcut_session"
    package var cookieValue: String? {
        token.map { SHA256.hex(of: Array("dropcut session\u{0}\($0)".utf8)) }
    }

    /// Whether `request` carries the token (always false when none is configured).
    package func isAuthenticated(_ request: HTTPRequest) -> Bool {
        guard let token else { return false }
        if let header = request.header("authorization"), let given = Self.bearerToken(header),
           Self.constantTimeEqual(given, token) { return true }
        if let cookie = request.cookie(Self.cookieName), let expected = cookieValue, Self.constantTimeEqual(cookie, expected) { return true }
        return false
    }

    /// The credentials of an `Authorization: Bearer <token>` value; nil for another scheme.
    /// RFC 9110 §11.1: the scheme is case-insensitive (`bearer`, `BEARER`), and one or
    /// more spaces separate it from the credentials.
    static func bearerToken(_ value: String) -> String? {
        let trimmed = value.drop { $0 == " " || $0 == "\t" }
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "bearer" else { return nil }
        let credentials = trimmed[space...].drop { $0 == " " }
        let token = credentials.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return token.isEmpty ? nil : String(token)
    }

    /// Nil when `request` may read; else the refusal.
    package func refusalToRead(_ request: HTTPRequest) -> HTTPResponse? {
        guard token != nil, !isAuthenticated(request) else { return nil }
        var response = HTTPResponse.text(401, "this listener needs its token: Authorization: Bearer <http.token>, or log in at /login")
        response.headers.append(("www-authenticate", "Bearer realm=\"dropcut\""))
        return response
    }

    /// Nil when `request` may change something; else the refusal.
    package func refusalToChange(_ request: HTTPRequest) -> HTTPResponse? {
        guard token != nil else {
            return .text(403, "changing anything over HTTP needs http.token in the config (none is set)")
        }
        guard isAuthenticated(request) else {
            return .text(401, "this request needs the token: Authorization: Bearer <http.token>, or log in at /login")
        }
        return refusalOfOrigin(request)
    }

    /// A cross-site request is refused (also the login form's).
    package func refusalOfOrigin(_ request: HTTPRequest) -> HTTPResponse? {
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" {
            return .text(403, "cross-site request refused (Sec-Fetch-Site: \(site))")
        }
        if let origin = request.header("origin") {
            guard let host = request.host, origin == "http://\(host)" || origin == "https://\(host)" else {
                return .text(403, "cross-origin request refused (Origin: \(origin))")
            }
        }
        return nil
    }

    /// Compares without stopping at the first difference (the time taken says nothing of
    /// how much of a guess was right).
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = x.count ^ y.count
        for i in 0..<max(x.count, y.count) {
            difference |= Int((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0))
        }
        return difference == 0
    }
}
