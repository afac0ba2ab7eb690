import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client over a TCP socket, for tests of the daemon's listener: it
/// sends the bytes it is given as they are (a `..` path, an oversized head), which a URL
/// library would clean up or refuse first.
public enum HTTPExchange {
    public struct Response: Sendable {
        public var status: Int
        /// Names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    public static func freePort() throws -> UInt16 { try SFTPServer.freePort() }

    /// Sends `method target` with `headers` (a `host` is added) and `body`, reads the answer
    /// until the server closes, within `timeout`.
    public static func request(_ method: String, _ target: String, port: UInt16, headers: [(String, String)] = [],
                               body: [UInt8] = [], timeout: Double = 20) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nhost: 127.0.0.1:\(port)\r\nconnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "content-length: \(body.count)\r\n" }
        head += "\r\n"
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        try writeAll(fd, Array(head.utf8) + body)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { received += buffer[0..<n]; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { continue }
            // A server that refuses early may reset the connection after answering.
            if errno == ECONNRESET && !received.isEmpty { break }
            throw Failure(description: "read: \(String(cString: strerror(errno)))")
        }
        return try parse(received)
    }

    /// Opens `target` and hands each chunk of the answer, as it arrives, to `chunk`
    /// (with everything received so far) until `chunk` returns false or `timeout` passes.
    public static func stream(_ target: String, port: UInt16, headers: [(String, String)] = [], timeout: Double,
                              _ chunk: (String) -> Bool) throws {
        var head = "GET \(target) HTTP/1.1\r\nhost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let fd = try connect(port: port, timeout: 0.5)
        defer { close(fd) }
        try writeAll(fd, Array(head.utf8))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                received += buffer[0..<n]
                if !chunk(String(decoding: received, as: UTF8.self)) { return }
            } else if n == 0 {
                return
            } else if errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK {
                throw Failure(description: "read: \(String(cString: strerror(errno)))")
            }
        }
    }

    public static func connect(port: UInt16, timeout: Double) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            // The server may answer and close before reading an oversized request whole.
            if n < 0 && (errno == EPIPE || errno == ECONNRESET) { return }
            throw Failure(description: "write: \(String(cString: strerror(errno)))")
        }
    }

    public static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no complete response head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], i = 0
        while i < bytes.count {
            guard let lineEnd = (i..<max(i, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16), size > 0,
                  lineEnd + 2 + size <= bytes.count else { break }
            out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            i = lineEnd + 2 + size + 2
        }
        return out
    }
}
