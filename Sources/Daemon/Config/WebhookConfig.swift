import Foundation

/// One webhook endpoint (`webhooks:` in the config, docs/connect.md): where events go, the
/// secret they are signed with (Standard Webhooks), which events, and for how long an
/// undelivered event is retried.
package struct WebhookConfig: Sendable, Hashable {
    /// `http://` or `https://`, with a host.
    package var url: String
    /// The secret's bytes (the base64 after `whsec_`).
    package var secret: [UInt8]
    package var events: Set<WebhookEventKind> = Set(WebhookEventKind.allCases)
    /// An event not delivered this long after it happened is dropped (logged).
    package var maxAge: Duration = .seconds(24 * 3600)
    /// One delivery attempt's bound: connecting, sending and reading the answer.
    package var timeout: Duration = .seconds(10)

    package init(url: String, secret: [UInt8]) {
        self.url = url
        self.secret = secret
    }

    /// Standard Webhooks: secrets are 24 to 64 random bytes.
    package static let secretBytes = 24...64

    /// The secret's bytes from its `whsec_<base64>` text; nil when it is not one.
    package static func secret(from text: String) -> [UInt8]? {
        guard text.hasPrefix("whsec_"), let data = Data(base64Encoded: String(text.dropFirst(6))),
              secretBytes.contains(data.count) else { return nil }
        return [UInt8](data)
    }

    /// Whether `url` is one a webhook may post to: http or https, a host, nothing else
    /// odd (no user or password: the secret signs, nothing rides in the URL).
    package static func isUsable(_ url: String) -> Bool {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty,
              parts.user == nil, parts.password == nil, parts.fragment == nil else { return false }
        if let port = parts.port, !(1...65535).contains(port) { return false }
        return url.utf8.count <= 2048 && !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false })
    }
}
