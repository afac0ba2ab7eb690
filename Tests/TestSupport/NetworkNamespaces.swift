import Foundation

/// Network namespaces for a partition test (`ip netns`, as root): one for a server and one
/// for each host, each host joined to the server's namespace by a veth pair whose server
/// end is on a bridge there. Addresses are 10.45.0.1 (the server) and 10.45.0.2... (the
/// hosts), private test addresses that exist only inside these namespaces; nothing is
/// added to this process's own namespace. A host's link can be cut (its veth set down)
/// and restored. Everything is deleted when the object goes, however the test ended.
public final class NetworkNamespaces: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The server's namespace, and the address it has there.
    public let server: String
    public let serverAddress = "10.45.0.1"
    /// The block the hosts' addresses are in (for the server's `pg_hba.conf`).
    public let block = "10.45.0.0/24"
    /// Each host's namespace, address, and the name of its veth's server end.
    public private(set) var hosts: [String: (namespace: String, address: String, link: String)] = [:]
    private var made: [String] = []

    /// Makes the namespaces for `names` (at most 200 hosts). Fails — never skips — when
    /// `ip netns` is not permitted, saying so.
    public init(hosts names: [String]) throws {
        // Unique per run: several test processes may make namespaces at once.
        let tag = String(getpid() % 100_000) + "-" + String(UInt32.random(in: 0..<0xffff), radix: 16)
        server = "dc45-\(tag)-db"
        do {
            try add(server)
            try Self.ip(["-n", server, "link", "add", "br0", "type", "bridge"])
            try Self.ip(["-n", server, "addr", "add", "\(serverAddress)/24", "dev", "br0"])
            try Self.ip(["-n", server, "link", "set", "br0", "up"])
            for (index, name) in names.enumerated() {
                let namespace = "dc45-\(tag)-h\(index)", address = "10.45.0.\(index + 2)", link = "h\(index)"
                try add(namespace)
                // Made inside the host's namespace, its peer sent straight to the server's:
                // no interface ever exists in this process's namespace.
                try Self.ip(["-n", namespace, "link", "add", "eth0", "type", "veth", "peer", "name", link, "netns", server])
                try Self.ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", "eth0"])
                try Self.ip(["-n", namespace, "link", "set", "eth0", "up"])
                try Self.ip(["-n", server, "link", "set", link, "master", "br0"])
                try Self.ip(["-n", server, "link", "set", link, "up"])
                hosts[name] = (namespace, address, link)
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    private func add(_ namespace: String) throws {
        do {
            try Self.ip(["netns", "add", namespace])
        } catch {
            throw Failure(description: "cannot make network namespace \(namespace) (`ip netns add` needs root, CAP_SYS_ADMIN and CAP_NET_ADMIN; the partition test cannot run without it): \(error)")
        }
        made.append(namespace)
        try Self.ip(["-n", namespace, "link", "set", "lo", "up"])
    }

    /// The command prefix that runs a program in `host`'s namespace.
    public func launcher(for host: String) -> [String] {
        guard let namespace = hosts[host]?.namespace else { preconditionFailure("no host \(host)") }
        return ["/usr/sbin/ip", "netns", "exec", namespace]
    }

    /// Cuts `host` off: its veth's server end goes down (packets either way are dropped;
    /// connections are not reset, as when a cable or a switch fails).
    public func cut(_ host: String) throws {
        guard let link = hosts[host]?.link else { preconditionFailure("no host \(host)") }
        try Self.ip(["-n", server, "link", "set", link, "down"])
    }

    /// Joins `host` again.
    public func restore(_ host: String) throws {
        guard let link = hosts[host]?.link else { preconditionFailure("no host \(host)") }
        try Self.ip(["-n", server, "link", "set", link, "up"])
    }

    /// Deletes every namespace made (their veths and bridge go with them).
    private func remove() {
        for namespace in made.reversed() { _ = try? Self.ip(["netns", "delete", namespace]) }
        made = []
    }

    /// Runs `ip` with `args`; throws with its stderr when it fails.
    @discardableResult
    static func ip(_ args: [String]) throws -> String {
        let result = try Command.run("/usr/sbin/ip", args)
        guard result.status == 0 else {
            throw Failure(description: "ip \(args.joined(separator: " ")): status \(result.status): \(result.stderr)")
        }
        return result.stdout
    }
}
