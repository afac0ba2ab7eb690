internal import CDropcutSystemd
import Foundation
import DropcutSupport
import Logging
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
import ServiceLifecycle

/// Why the listener did not start.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package var description: String
}

/// The HTTP listener (`http:` in the config), a swift-service-lifecycle `Service`: binds
/// its address, unix socket or the socket systemd passed, serves `APIRouter` until the
/// daemon stops, then closes (and removes its unix socket). Its one event-loop thread
/// exists only while it runs — and it runs only when the config has `http:`.
package final class HTTPServer: Service {
    let config: HTTPConfig
    let router: APIRouter
    let logger: Logger
    /// How long a connection may send nothing before its request is whole; shorter in
    /// tests (`DROPCUT_HTTP_IDLE_MS`).
    let idleTimeout: Duration
    package static let defaultIdleTimeout: Duration = .seconds(30)
    /// How long a request may take to arrive whole, from its first byte (a client trickling
    /// a header line now and then is never idle); shorter in tests (`DROPCUT_HTTP_REQUEST_MS`).
    let requestTimeout: Duration
    package static let defaultRequestTimeout: Duration = .seconds(10)
    let connections: HTTPConnections

    package init(config: HTTPConfig, router: APIRouter, metrics: DaemonMetrics, logger: Logger,
                 idleTimeout: Duration = HTTPServer.defaultIdleTimeout, requestTimeout: Duration = HTTPServer.defaultRequestTimeout,
                 limits: ConnectionLimits = ConnectionLimits(descriptors: DescriptorLimit.soft, inUse: DescriptorLimit.inUse),
                 descriptors: UInt64 = DescriptorLimit.soft) {
        self.config = config
        self.router = router
        self.logger = logger
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        connections = HTTPConnections(limits: limits, descriptors: descriptors, metrics: metrics, logger: logger)
    }

    /// The request deadline a test asks for through `DROPCUT_HTTP_REQUEST_MS` (100 ms to 10 min), else nil.
    package static func requestTimeout(fromEnvironment environment: [String: String]) -> Duration? {
        guard let text = environment["DROPCUT_HTTP_REQUEST_MS"], let ms = Int(text), (100...600_000).contains(ms) else { return nil }
        return .milliseconds(ms)
    }

    /// The idle timeout a test asks for through `DROPCUT_HTTP_IDLE_MS` (100 ms to 10 min), else nil.
    package static func idleTimeout(fromEnvironment environment: [String: String]) -> Duration? {
        guard let text = environment["DROPCUT_HTTP_IDLE_MS"], let ms = Int(text), (100...600_000).contains(ms) else { return nil }
        return .milliseconds(ms)
    }

    package func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await serve(on: group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private func serve(on group: MultiThreadedEventLoopGroup) async throws {
        let router = self.router, connections = self.connections
        let idle = TimeAmount.milliseconds(idleTimeout.wholeMilliseconds)
        let deadline = TimeAmount.milliseconds(requestTimeout.wholeMilliseconds)
        let bootstrap = ServerBootstrap(group: group)
            // Connections the kernel has completed but the daemon not yet accepted cost no
            // descriptor; a short queue (64) filled with a churning client's reconnects and
            // dropped a scraper's SYN, which then waited out the 1 s retransmit. The kernel
            // clamps this to net.core.somaxconn (4096 by default).
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let local = Self.isLocal(channel.remoteAddress)
                let onLoopback = Self.isLoopback(channel.localAddress)
                // Past a cap: an older unfinished connection is closed for this one, or this
                // one is (`ConnectionTable`).
                guard let id = connections.admit(channel, peer: Self.peer(channel.remoteAddress)) else {
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPConnectionGuard(connections: connections, id: id, requestTimeout: deadline,
                                            maximumHeadBytes: HTTPConnectionHandler.maximumHeadBytes))
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idle))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(router: router, isLocalPeer: local,
                                                                                         onLoopback: onLoopback))
                }
            }
        let channel: any Channel
        do {
            switch config.listen {
            case let .tcp(host, port):
                channel = try await bootstrap.bind(host: host, port: port).get()
            case let .unix(path):
                channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            case .systemd:
                channel = try await bootstrap.withBoundSocket(try Self.systemdSocket()).get()
                if !Self.isLocal(channel.localAddress) && config.token == nil {
                    channel.close(promise: nil)
                    throw HTTPServerError(description: "http: the socket systemd passed (\(channel.localAddress.map { "\($0)" } ?? "?")) is not a loopback address, and http.token is not set: refusing to serve it; set http.token, or make dropcut.socket listen on 127.0.0.1")
                }
            }
        } catch let error as HTTPServerError {
            throw error
        } catch {
            throw HTTPServerError(description: "http: cannot listen on \(config.listen): \(error)")
        }
        let address = channel.localAddress.map { "\($0)" } ?? "\(config.listen)"
        let caps = "at most \(connections.limits.total) connections, \(connections.limits.perPeer) from one address"
        if Self.isLocal(channel.localAddress) {
            logger.notice("http: listening on \(address) (\(caps))")
        } else {
            logger.warning("http: listening on \(address) (\(caps)), reachable from other machines; every request needs the token")
        }
        try await withGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
        if case let .unix(path) = config.listen { unlink(path) }
    }

    /// The one listening stream socket systemd passed (`LISTEN_FDS`).
    static func systemdSocket() throws -> NIOBSDSocket.Handle {
        let count = sd_listen_fds(1)
        guard count >= 1 else {
            throw HTTPServerError(description: "http.listen is systemd, but systemd passed no socket (start dropcut through dropcut.socket, or give an address)")
        }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket(fd, AF_UNSPEC, Int32(SOCK_STREAM.rawValue), 1) > 0 else {
            throw HTTPServerError(description: "http.listen is systemd, but what systemd passed is not a listening stream socket")
        }
        return fd
    }

    /// A peer's address without its port: what the per-peer cap counts.
    static func peer(_ address: SocketAddress?) -> String {
        switch address {
        case let .v4(v4)?: return v4.host
        case let .v6(v6)?: return v6.host
        case .unixDomainSocket?: return "unix"
        case nil: return "?"
        }
    }

    /// A loopback address (not a unix socket: what a browser reaches is TCP).
    static func isLoopback(_ address: SocketAddress?) -> Bool {
        switch address {
        case let .v4(v4)?: return HTTPConfig.Listen.isLoopback(v4.host)
        case let .v6(v6)?: return HTTPConfig.Listen.isLoopback(v6.host)
        default: return false
        }
    }

    /// Loopback and unix socket peers (and addresses) are this machine.
    static func isLocal(_ address: SocketAddress?) -> Bool {
        switch address {
        case .unixDomainSocket?: return true
        case let .v4(v4)?: return HTTPConfig.Listen.isLoopback(v4.host)
        case let .v6(v6)?: return HTTPConfig.Listen.isLoopback(v6.host)
        case nil: return false
        }
    }
}
