import Foundation

/// Which `Host` values a listener reached on a loopback address answers (docs/connect.md,
/// "Security"). Without it, any web page could read the listener through the visitor's
/// browser by DNS rebinding: its own name, re-pointed to 127.0.0.1, is same-origin for the
/// browser, and a token-less loopback listener would answer. A loopback listener answers a
/// host that names the loopback address (127.0.0.0/8, [::1]), `localhost`, or one of
/// `http.allowed_hosts`; anything else is 421 Misdirected Request (RFC 9110 §15.5.20 and
/// §7.4: this server is not authoritative for that origin).
package struct HostCheck: Sendable, Hashable {
    /// Names from the config, lower-case, without a trailing dot.
    package var allowed: Set<String>

    package init(allowed: [String] = []) {
        self.allowed = Set(allowed.map { Self.normalized($0) })
    }

    /// What is wrong with `value` (a Host header or an absolute-form target's authority),
    /// or nil when the listener may answer it.
    package func refusal(of value: String?) -> String? {
        guard let value else { return "the request names no host (Host header)" }
        guard let (host, _) = Self.split(value) else { return "the Host header '\(value)' is not a host and port" }
        if Self.isLoopback(host) { return nil }
        let name = Self.normalized(host)
        if name == "localhost" || allowed.contains(name) { return nil }
        return "this listener answers only localhost, 127.0.0.1, [::1] and the names in http.allowed_hosts, not '\(host)'"
    }

    /// `host[:port]` or `[v6][:port]` → the host (brackets removed) and the port; nil when
    /// it is neither, or the port is not 1–65535.
    static func split(_ value: String) -> (host: String, port: Int?)? {
        let text = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        var host: Substring, rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
        } else {
            let colon = text.firstIndex(of: ":") ?? text.endIndex
            host = text[..<colon]
            rest = text[colon...]
        }
        guard !host.isEmpty else { return nil }
        guard !rest.isEmpty else { return (String(host), nil) }
        guard rest.hasPrefix(":") else { return nil }
        let digits = rest.dropFirst()
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(digits), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// 127.0.0.0/8 as a dotted quad, ::1 (and ::ffff:127.x.y.z).
    static func isLoopback(_ host: String) -> Bool {
        HTTPConfig.Listen.isLoopback(host)
    }

    static func normalized(_ name: String) -> String {
        var lower = name.lowercased()
        if lower.hasSuffix(".") { lower.removeLast() }
        return lower
    }

    /// Whether `name` may be listed in `http.allowed_hosts`: a DNS name (labels of letters,
    /// digits and `-`, 1–63 bytes each, 253 in all, not starting or ending with `-`, the
    /// last not all digits).
    package static func isHostName(_ name: String) -> Bool {
        let name = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        // An address is no name (RFC 1123 §2.1: a top-level label is never all digits);
        // loopback addresses are answered anyway.
        if let last = name.split(separator: ".").last, last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d }
        }
    }
}
