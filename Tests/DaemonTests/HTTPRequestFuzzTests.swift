import Foundation
import Logging
import Testing
import TestSupport
@testable import DropcutDaemon

/// The listener's parsers (request targets, query strings, forms, cookies) and its router
/// on random and hostile input: no trap, no path that climbs, never a server error for
/// a bad path.
@Suite struct HTTPRequestFuzzTests {
    static let alphabet: [UInt8] = Array("/.%2e2fF0aZ?&=+;: \u{7f}\\".utf8) + [0, 0xc3, 0xa9, 0xff]

    static func randomTarget(_ random: inout SplitMix64) -> String {
        let length = Int(random.next() % 40)
        let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func segmentsNeverClimb() {
        var random = SplitMix64(state: 7)
        for _ in 0..<20_000 {
            let target = Self.randomTarget(&random)
            let request = HTTPRequest(method: "GET", target: target, headers: [("Cookie", target), ("Host", "x")], body: Array(target.utf8),
                                      isLocalPeer: true)
            for segment in request.segments ?? [] {
                #expect(segment != ".." && segment != "." && !segment.contains("/") && !segment.contains("\0") && !segment.isEmpty,
                        "\(target.debugDescription) gave the segment \(segment.debugDescription)")
            }
            _ = request.cookie("dropcut_session")
            _ = HTTPRequest.form(target)
        }
        #expect(HTTPRequest.segments(of: "/api/v1/jobs/%2e%2e/thumbnail") == nil)
        #expect(HTTPRequest.segments(of: "/a/b%2fc") == nil)
        #expect(HTTPRequest.segments(of: "/a//b/") == ["a", "b"])
        #expect(HTTPRequest.segments(of: "/failed/x/clip%20one.mp4") == ["failed", "x", "clip one.mp4"])
        #expect(HTTPRequest.form("token=a%2Bb+c&x") == ["token": "a+b c", "x": ""])
    }

    /// The router on random targets and methods: a 4xx (or the page and metrics), never
    /// a 5xx and never a file outside the state folder.
    @Test func routerAnswersGarbageWithClientErrors() async throws {
        let dir = try TemporaryDirectory()
        let config = DaemonConfig(path: dir.file("dropcut.yaml"), stateDirectory: dir.file("state"),
                                  folders: [FolderConfig(name: "f", inbox: dir.file("in"), outbox: dir.file("out"), failed: dir.file("failed"))])
        let router = APIRouter(config: config, metrics: DaemonMetrics(version: "test", workers: 1), board: StatusBoard(),
                               logger: Logger(label: "fuzz"))
        var random = SplitMix64(state: 11)
        for n in 0..<3000 {
            let target = "/" + Self.randomTarget(&random)
            let method = ["GET", "POST", "HEAD", "DELETE"][n % 4]
            let response = await router.respond(to: HTTPRequest(method: method, target: target, headers: [], isLocalPeer: true))
            if case .events = response.body { continue }
            #expect(response.status < 500, "\(method) \(target.debugDescription): \(response.status)")
        }
        let climb = await router.respond(to: HTTPRequest(method: "GET", target: "/api/v1/jobs/..%2F..%2Fetc%2Fpasswd", headers: [], isLocalPeer: true))
        #expect(climb.status == 400)
        let noToken = await router.respond(to: HTTPRequest(method: "POST", target: "/api/v1/failed/f/x.mp4/retry", headers: [], isLocalPeer: true))
        #expect(noToken.status == 403, "a retry with no token configured must be refused")
        // Two Host headers (RFC 9112 §3.2): a 400 before the host is looked at, on the unix
        // socket as on loopback.
        for onLoopback in [false, true] {
            let twice = await router.respond(to: HTTPRequest(method: "GET", target: "/api/v1/status",
                                                             headers: [("Host", "localhost"), ("HOST", "evil.example")],
                                                             isLocalPeer: true, onLoopback: onLoopback))
            #expect(twice.status == 400)
            let once = await router.respond(to: HTTPRequest(method: "GET", target: "/api/v1/status", headers: [("Host", "localhost")],
                                                            isLocalPeer: true, onLoopback: onLoopback))
            #expect(once.status == 200)
        }
    }

    /// Heads cut into random chunks: the scanner finds the same end as in one piece, and
    /// never lets a head past its limit.
    @Test func headScannerIsIndependentOfChunking() {
        var random = SplitMix64(state: 4531)
        let pieces: [[UInt8]] = [Array("\r\n".utf8), Array("\n".utf8), Array("\r".utf8), Array("GET / HTTP/1.1".utf8), Array("a: b".utf8), [0], [0xff]]
        for _ in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 12) { bytes += pieces[Int(random.next() % UInt64(pieces.count))] }
            let limit = 1 + Int(random.next() % 64)
            var whole = HeadScanner(limit: limit)
            let once = whole.scan(bytes)
            var chunked = HeadScanner(limit: limit)
            var offset = 0, result = HeadScanner.Result.needMore
            while offset < bytes.count {
                let length = 1 + Int(random.next() % 5)
                let chunk = bytes[offset..<min(bytes.count, offset + length)]
                result = chunked.scan(chunk)
                if case let .complete(n) = result { result = .complete(bytes: offset + n); break }
                if result == .tooLarge { break }
                offset += chunk.count
            }
            #expect(result == once, "\(bytes) limit \(limit): \(result) in chunks, \(once) at once")
            if case let .complete(n) = once { #expect(n <= limit && n <= bytes.count) }
        }
    }

    /// Host values, absolute-form targets and Authorization values from random bytes: no
    /// trap, nothing but a name of this machine is answered, a token has no padding.
    @Test func hostCheckAndAbsoluteFormOnGarbage() {
        var random = SplitMix64(state: 4532)
        let check = HostCheck(allowed: ["ok.example"])
        let alphabet: [UInt8] = Array("[]:.0123456789localhostk.exampleLXx%/?#@ ".utf8) + [0, 0xc3, 0xa9, 0xff]
        for _ in 0..<20_000 {
            let bytes = (0..<Int(random.next() % 24)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let text = String(decoding: bytes, as: UTF8.self)
            if check.refusal(of: text) == nil, let (host, port) = HostCheck.split(text) {
                let name = HostCheck.normalized(host)
                #expect(name == "localhost" || name == "ok.example" || HTTPConfig.Listen.isLoopback(host), "\(text.debugDescription) answered")
                #expect(port.map { (1...65535).contains($0) } ?? true)
            }
            let request = HTTPRequest(method: "GET", target: "http://" + text, headers: [], isLocalPeer: true)
            for segment in request.segments ?? [] { #expect(segment != ".." && !segment.contains("/")) }
            if let token = RequestAuthorization.bearerToken("bEaReR " + text) {
                #expect(!token.isEmpty && token.first != " " && token.last != " " && token.last != "\t", "\(text.debugDescription) gave \(token.debugDescription)")
            }
            _ = RequestAuthorization.bearerToken(text)
        }
    }

    @Test func tokenComparisonAndCookie() {
        let auth = RequestAuthorization(token: "0123456789abcdefXYZ")
        let good = HTTPRequest(method: "GET", target: "/", headers: [("Authorization", "Bearer 0123456789abcdefXYZ")], isLocalPeer: false)
        let bad = HTTPRequest(method: "GET", target: "/", headers: [("Authorization", "Bearer 0123456789abcdefXY")], isLocalPeer: false)
        let cookie = HTTPRequest(method: "GET", target: "/", headers: [("Cookie", "a=b; dropcut_session=\(auth.cookieValue!)")], isLocalPeer: false)
        #expect(auth.isAuthenticated(good))
        #expect(!auth.isAuthenticated(bad))
        #expect(auth.isAuthenticated(cookie))
        #expect(auth.cookieValue != "0123456789abcdefXYZ")
        #expect(!RequestAuthorization(token: nil).isAuthenticated(good))
        let crossSite = HTTPRequest(method: "POST", target: "/", headers: [("Authorization", "Bearer 0123456789abcdefXYZ"), ("Host", "127.0.0.1:1"),
                                                                           ("Origin", "http://127.0.0.1:2")], isLocalPeer: true)
        #expect(auth.refusalToChange(crossSite)?.status == 403)
        let sameSite = HTTPRequest(method: "POST", target: "/", headers: [("Authorization", "Bearer 0123456789abcdefXYZ"), ("Host", "127.0.0.1:1"),
                                                                          ("Origin", "http://127.0.0.1:1")], isLocalPeer: true)
        #expect(auth.refusalToChange(sameSite) == nil)
    }
}
