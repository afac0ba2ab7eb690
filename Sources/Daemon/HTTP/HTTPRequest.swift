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

    package init(method: String, target: String, headers: [(String, String)], body: [UInt8] = [], isLocalPeer: Bool) {
        self.method = method
        self.target = target
        self.headers = headers.map { (name: $0.0.lowercased(), value: $0.1) }
        self.body = body
        self.isLocalPeer = isLocalPeer
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        segments = Self.segments(of: parts.first.map(String.init) ?? "")
        query = parts.count > 1 ? Self.form(String(parts[1])) : [:]
    }

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
