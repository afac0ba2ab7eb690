import Foundation
import DropcutRecipe
import DropcutSupport

/// The keys that connect dropcut to other systems: `http:` (the listener) and `webhooks:`.
extension ConfigLoader {
    static let httpKeys = ["listen", "token", "token_file", "allowed_hosts"]
    static let webhookKeys = ["url", "secret", "events", "max_age", "timeout"]

    /// `http: { listen: 127.0.0.1:8181 | "[::1]:8181" | /run/dropcut/http.sock | systemd,
    /// token: …, token_file: …, allowed_hosts: [name, …] }`. A listener reachable from other
    /// machines needs a token.
    static func decodeHTTP(_ node: RecipeNode, base: String, _ reader: inout RecipeReader) -> HTTPConfig? {
        guard let f = reader.fields(node, "http", allowed: httpKeys) else { return nil }
        guard let listenNode = f["listen"] else {
            reader.error("http.listen is missing: an address and port (127.0.0.1:8181), a unix socket path, or systemd", at: f.location)
            return nil
        }
        guard let text = reader.string(listenNode, "http.listen") else { return nil }
        guard let listen = listenAddress(text, base: base) else {
            reader.error("http.listen must be an IP address and port like 127.0.0.1:8181 or [::1]:8181 (port 1–65535), a unix socket path (/run/dropcut/http.sock), or systemd; got '\(text)'",
                         at: listenNode.location)
            return nil
        }
        var config = HTTPConfig(listen: listen)
        if f["token"] != nil && f["token_file"] != nil {
            reader.error("http.token and http.token_file exclude each other: give one", at: f.location)
        }
        if let node = f["token"], let token = reader.string(node, "http.token") {
            if let problem = tokenProblem(token) { reader.error("http.token \(problem)", at: node.location) } else { config.token = token }
        }
        if let node = f["token_file"], let file = reader.string(node, "http.token_file") {
            let path = absolute(file, base: base)
            do {
                let token = try TextFile.read(path, followSymlinks: true).trimmingCharacters(in: .whitespacesAndNewlines)
                if let problem = tokenProblem(token) { reader.error("http.token_file \(path): the token \(problem)", at: node.location) } else { config.token = token }
            } catch {
                reader.error("http.token_file \(error)", at: node.location)
            }
        }
        if let node = f["allowed_hosts"], let list = reader.list(node, "http.allowed_hosts") {
            if list.count > maximumAllowedHosts {
                reader.error("http.allowed_hosts lists \(list.count) names; at most \(maximumAllowedHosts)", at: node.location)
            }
            for item in list.prefix(maximumAllowedHosts) {
                guard let name = reader.string(item, "http.allowed_hosts") else { continue }
                if HostCheck.isHostName(name) {
                    config.allowedHosts.append(name.lowercased())
                } else {
                    reader.error("http.allowed_hosts: '\(name)' is not a host name (letters, digits, - and dots; labels of 1–63, 253 in all); 127.0.0.1, [::1] and localhost are always answered",
                                 at: item.location)
                }
            }
        }
        if case let .tcp(host, _) = listen, !listen.isLocal, config.token == nil, f["token"] == nil, f["token_file"] == nil {
            reader.error("http.listen \(listen) is not a loopback address: anyone who can reach \(host) could read and retry jobs; set http.token (or http.token_file), or listen on 127.0.0.1",
                         at: listenNode.location)
        }
        return config
    }

    /// `host:port` (IPv6 in brackets; `localhost` is 127.0.0.1), an absolute or relative
    /// socket path (one with a `/`), or `systemd`.
    static func listenAddress(_ text: String, base: String) -> HTTPConfig.Listen? {
        if text == "systemd" { return .systemd }
        if text.contains("/") {
            let path = absolute(text, base: base)
            // sockaddr_un's sun_path holds 107 bytes and the NUL.
            return path.utf8.count < 108 ? .unix(path: path) : nil
        }
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isASCII) else { return nil }
        let address = host == "localhost" ? "127.0.0.1" : String(host)
        var v4 = in_addr(), v6 = in6_addr()
        guard inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        return .tcp(host: address, port: number)
    }

    /// More names than any real setup has: a list past it is a mistake.
    static let maximumAllowedHosts = 64

    /// Why `token` cannot be a token (nil: it can): long enough, printable ASCII without
    /// spaces (it travels in a header).
    static func tokenProblem(_ token: String) -> String? {
        guard token.utf8.count >= HTTPConfig.minimumTokenLength else {
            return "must be at least \(HTTPConfig.minimumTokenLength) characters (got \(token.utf8.count))"
        }
        guard token.utf8.count <= 256, token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            return "must be at most 256 printable ASCII characters without spaces"
        }
        return nil
    }

    /// `webhooks: [{ url, secret: whsec_…, events: [job.done, …], max_age: 24h, timeout: 10s }]`.
    static func decodeWebhooks(_ node: RecipeNode, _ reader: inout RecipeReader) -> [WebhookConfig] {
        guard let items = reader.list(node, "webhooks") else { return [] }
        var hooks: [WebhookConfig] = []
        for (n, item) in items.enumerated() {
            let what = "webhooks[\(n + 1)]"
            guard let f = reader.fields(item, what, allowed: webhookKeys) else { continue }
            guard let urlNode = f["url"], let secretNode = f["secret"] else {
                reader.error("\(what) needs a url and a secret (whsec_ and base64, as Standard Webhooks gives them)", at: f.location)
                continue
            }
            guard let url = reader.string(urlNode, "\(what).url"), let secretText = reader.string(secretNode, "\(what).secret") else { continue }
            guard WebhookConfig.isUsable(url) else {
                reader.error("\(what).url must be an http:// or https:// address with a host and no user, password or fragment; got '\(url)'",
                             at: urlNode.location)
                continue
            }
            guard let secret = WebhookConfig.secret(from: secretText) else {
                reader.error("\(what).secret must be whsec_ followed by the base64 of 24 to 64 bytes", at: secretNode.location)
                continue
            }
            var hook = WebhookConfig(url: url, secret: secret)
            if let eventsNode = f["events"], let list = reader.list(eventsNode, "\(what).events") {
                var events = Set<WebhookEventKind>()
                for event in list {
                    guard let name = reader.string(event, "\(what).events") else { continue }
                    if let kind = WebhookEventKind(rawValue: name) {
                        events.insert(kind)
                    } else {
                        reader.error("\(what).events: '\(name)' is not an event; the events are \(WebhookEventKind.allCases.map(\.rawValue).joined(separator: ", "))",
                                     at: event.location)
                    }
                }
                if list.isEmpty { reader.error("\(what).events is empty: name at least one event, or leave it out for all", at: eventsNode.location) }
                hook.events = events
            }
            if let n = f["max_age"], let d = duration(n, "\(what).max_age", &reader, minimum: 60, maximum: 30 * 86400) { hook.maxAge = d }
            if let n = f["timeout"], let d = duration(n, "\(what).timeout", &reader, minimum: 1, maximum: 120) { hook.timeout = d }
            hooks.append(hook)
        }
        return hooks
    }
}
