import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `NOTIFY_SOCKET`: a bound datagram socket that collects what a service sends
/// with `sd_notify`, in order, as systemd would receive it.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var reader: Thread?

    /// Binds a socket at `path` (removed first if left over).
    public init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw Failure("bind \(path): \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [weak self] in self?.readLoop() }
        reader = thread
        thread.start()
    }

    private var closed: Bool { lock.withLock { isClosed } }
    private var isClosed = false

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !closed {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                lock.withLock { received.append(message) }
            }
        }
    }

    /// Every datagram so far, in arrival order (a datagram may hold several lines).
    public var messages: [String] { lock.withLock { received } }

    /// Waits until some datagram satisfies `condition`, up to `timeout`.
    @discardableResult
    public func wait(timeout: Duration = .seconds(20), until condition: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if messages.contains(where: condition) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return messages.contains(where: condition)
    }

    /// `wait(timeout:until:)` by that name, for async callers that must not wait late (an
    /// awaited poll resumes only once a pool thread is free).
    @discardableResult
    public func waitBlocking(timeout: Duration = .seconds(20), until condition: (String) -> Bool) -> Bool {
        wait(timeout: timeout, until: condition)
    }

    /// `wait(timeout:until:)`, awaited: polls apart by `Task.sleep`, holding no thread of
    /// the concurrency pool.
    @discardableResult
    public func wait(timeout: Duration = .seconds(20), until condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if messages.contains(where: condition) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return messages.contains(where: condition)
    }

    deinit {
        lock.withLock { isClosed = true }
        Thread.sleep(forTimeInterval: 0.15)   // the reader wakes from recv's timeout and sees it
        close(fd)
        unlink(path)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
