import Foundation

/// The optional HTTP listener (`http:` in the config, docs/connect.md): metrics, the status
/// API and page, retry. Without the key nothing listens.
package struct HTTPConfig: Sendable, Hashable {
    /// Where to listen.
    package enum Listen: Sendable, Hashable, CustomStringConvertible {
        /// An IP address (v4 or v6 literal) and port.
        case tcp(host: String, port: Int)
        /// A unix socket at this path (created at start, removed at stop).
        case unix(path: String)
        /// The listening socket systemd passes (`dropcut.socket`, `LISTEN_FDS`).
        case systemd

        package var description: String {
            switch self {
            case let .tcp(host, port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case let .unix(path): path
            case .systemd: "systemd"
            }
        }

        /// Whether only this machine can reach it: a loopback address or a unix socket.
        /// (What systemd passes is judged on the socket itself, at start.)
        package var isLocal: Bool {
            switch self {
            case let .tcp(host, _): Self.isLoopback(host)
            case .unix: true
            case .systemd: false
            }
        }

        /// 127.0.0.0/8 and ::1 (and ::ffff:127.x.y.z).
        package static func isLoopback(_ host: String) -> Bool {
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
            guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            return mapped && bytes[12] == 127
        }
    }

    package var listen: Listen
    /// The bearer token every request from off this machine, and every mutating request,
    /// must carry (`Authorization: Bearer …`, or the page's login cookie). Nil: none set,
    /// which only a local listener may do.
    package var token: String?

    /// Host names (besides localhost, 127.0.0.0/8 and [::1]) a client reaching the listener
    /// on a loopback address may name in its `Host` header (`http.allowed_hosts`,
    /// lower-case). Any other is refused (`HostCheck`: DNS rebinding).
    package var allowedHosts: [String]

    package init(listen: Listen, token: String? = nil, allowedHosts: [String] = []) {
        self.listen = listen
        self.token = token
        self.allowedHosts = allowedHosts
    }

    /// The least a token may be: guessing it must be out of reach.
    package static let minimumTokenLength = 16
}
