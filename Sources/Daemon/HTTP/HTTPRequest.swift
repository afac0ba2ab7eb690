import Foundation

/// A request as the listener read it, whole (heads and bodies are capped before this):
/// what `APIRouter` answers. Plain values, no NIO type.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The path's segments, percent-decoded; nil when the target is not a clean absolute
    /// path (a `..` or `.` segment, an encoded `/` or NUL, bad percent-encoding).
    package var segments: [String]?
    /// The target as sent (for logs).
    package var target: String
    package var query: [String: String]
    /// Names lowercased.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// Whether the peer is on this machine (loopback or the unix socket).
    package var isLocalPeer: Bool
    /// Whether the client reached the listener on a loopback address: then only host names
    /// that mean this machine are answered (`HostCheck`, against DNS rebinding).
    package var onLoopback: Bool
    /// The authority of an absolute-form target (`GET http://127.0.0.1:8181/metrics`),
    /// which RFC 9112 §3.2.2 says stands in place of the Host header.
    package var authority: String?

    package init(method: String, target: String, headers: [(String, String)], body: [UInt8] = [], isLocalPeer: Bool,
                 onLoopback: Bool = false) {
        self.method = method
        self.target = target
        self.headers = headers.map { (name: $0.0.lowercased(), value: $0.1) }
        self.body = body
        self.isLocalPeer = isLocalPeer
        self.onLoopback = onLoopback
        let (authority, path) = Self.originForm(of: target)
        self.authority = authority
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        segments = Self.segments(of: parts.first.map(String.init) ?? "")
        query = parts.count > 1 ? Self.form(String(parts[1])) : [:]
    }

    /// An absolute-form target (`http://host:port/path?query`, the scheme in any case)
    /// split into its authority and the origin form (`/path?query`; `/` when it has no
    /// path); any other target as it is, with no authority. RFC 9112 §3.2.2: a server
    /// must accept the absolute form.
    static func originForm(of target: String) -> (authority: String?, path: String) {
        let lower = target.prefix(8).lowercased()
        let schemeLength = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return (nil, target) }
        let rest = target.dropFirst(schemeLength)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = String(rest[..<end])
        var path = String(rest[end...])
        if !path.hasPrefix("/") { path = "/" + path }
        return (authority, path)
    }

    /// The host the request names: an absolute-form target's authority, else its Host
    /// header.
    package var host: String? { authority ?? header("host") }

    /// The first value of header `name`.
    package func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// `/a/b%20c/` → ["a", "b c"]; nil for anything that could climb or hide a separator.
    static func segments(of path: String) -> [String]? {
        guard path.hasPrefix("/") else { return nil }
        var result: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            if decoded == "." || decoded == ".." || decoded.contains("/") || decoded.contains("\0") { return nil }
            result.append(decoded)
        }
        return result
    }

    /// `a=1&b=x%20y` (and `+` for spaces, as forms send them); later keys do not replace.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = String(kv[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding else { continue }
            let value = kv.count > 1 ? String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
            if fields[key] == nil, let value { fields[key] = value }
        }
        return fields
    }

    /// The value of cookie `name`.
    package func cookie(_ name: String) -> String? {
        for header in headers where header.name == "cookie" {
            for part in header.value.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2 && kv[0] == name { return String(kv[1]) }
            }
        }
        return nil
    }
}
