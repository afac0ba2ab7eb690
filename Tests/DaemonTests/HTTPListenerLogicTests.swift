import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon

/// The listener's pure parts (issue 45): the connection caps and whom they close, where a
/// head ends, which Host values a loopback listener answers, absolute-form targets, the
/// Bearer scheme in any case, the 405's Allow, and multi-line reasons on the page.
@Suite struct HTTPListenerLogicTests {
    @Test func limitsKeepDescriptorsForRendering() {
        for soft: UInt64 in [0, 1, 16, 64, 65, 128, 256, 1024, 4096, 65536, 1 << 20, UInt64.max] {
            let limits = ConnectionLimits(descriptors: soft)
            #expect(limits.total >= 1 && limits.total <= ConnectionLimits.maximum, "\(soft): \(limits)")
            #expect(limits.perPeer >= 1 && limits.perPeer <= limits.total, "\(soft): \(limits)")
            if soft >= 128 && soft < UInt64.max { #expect(UInt64(limits.total + limits.reserve) <= soft, "\(soft): \(limits)") }
        }
        #expect(ConnectionLimits(descriptors: 1024) == ConnectionLimits(total: 512, perPeer: 128, reserve: 256))
        #expect(ConnectionLimits(descriptors: 256) == ConnectionLimits(total: 192, perPeer: 48, reserve: 64))
    }

    /// A peer at its cap gives up its own oldest unfinished connection; at the total cap
    /// the peer holding the most does; busy connections are never given up, and when all
    /// are busy the newcomer is refused.
    @Test func capsCloseTheOldestUnfinishedOfTheBiggestPeer() {
        var table = ConnectionTable(limits: ConnectionLimits(total: 6, perPeer: 3))
        func id(_ admission: ConnectionTable.Admission) -> Int? {
            if case let .admitted(id, _, _) = admission { return id }
            return nil
        }
        let a0 = id(table.admit(peer: "a"))!, a1 = id(table.admit(peer: "a"))!, a2 = id(table.admit(peer: "a"))!
        #expect(table.count(of: "a") == 3)
        // Peer cap: a's oldest unfinished (a0) goes.
        #expect(table.admit(peer: "a") == .admitted(id: 3, evicting: a0, reason: "peer"))
        table.set(a1, .answering)
        // a1 is busy: a2 goes next.
        #expect(table.admit(peer: "a") == .admitted(id: 4, evicting: a2, reason: "peer"))
        let b0 = id(table.admit(peer: "b"))!
        _ = table.admit(peer: "b")
        _ = table.admit(peer: "b")
        #expect(table.count == 6)
        // Total cap: of the peers holding the most (a and b, 3 each), the oldest unfinished (3).
        #expect(table.admit(peer: "c") == .admitted(id: 8, evicting: 3, reason: "total"))
        // Streams go after unfinished requests: b's oldest, not a's stream.
        table.set(4, .streaming)
        #expect(table.admit(peer: "c") == .admitted(id: 9, evicting: b0, reason: "total"))
        // Everything busy: refused.
        for (key, _) in table.entries { table.set(key, .answering) }
        #expect(table.admit(peer: "d") == .refused(reason: "total"))
        #expect(table.admit(peer: "a") == .refused(reason: "total"))
        for (key, _) in table.entries { table.remove(key) }
        #expect(table.count == 0)
    }

    /// Random admissions, stages and closes: the caps hold after every step, and a busy
    /// connection is never given up.
    @Test func capsHoldUnderRandomTraffic() {
        var random = SplitMix64(state: 45)
        for round in 0..<200 {
            let limits = ConnectionLimits(total: 1 + Int(random.next() % 12), perPeer: 1 + Int(random.next() % 6))
            var table = ConnectionTable(limits: limits)
            for _ in 0..<300 {
                let peer = "p\(random.next() % 4)"
                switch random.next() % 4 {
                case 0, 1:
                    let before = table.entries
                    switch table.admit(peer: peer) {
                    case let .admitted(_, victim, _):
                        if let victim { #expect(before[victim]?.stage != .answering, "round \(round): a busy connection was given up") }
                    case .refused:
                        #expect(before.count == table.count)
                    }
                case 2:
                    if let key = table.entries.keys.randomElement(using: &random) {
                        table.set(key, [.reading, .answering, .streaming][Int(random.next() % 3)])
                    }
                default:
                    if let key = table.entries.keys.randomElement(using: &random) { table.remove(key) }
                }
                #expect(table.count <= limits.total)
                for p in 0..<4 { #expect(table.count(of: "p\(p)") <= limits.perPeer) }
            }
        }
    }

    @Test func headScannerFindsTheEndAcrossChunksAndCapsTheSize() {
        let head = Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nBODY".utf8)
        for split in 0...head.count {
            var scanner = HeadScanner(limit: 1000)
            var results = [scanner.scan(head[..<split])]
            results.append(scanner.scan(head[split...]))
            let end = head.count - 4
            if split >= end {
                #expect(results[0] == .complete(bytes: end), "split \(split): \(results)")
            } else {
                #expect(results == [.needMore, .complete(bytes: end - split)], "split \(split): \(results)")
            }
        }
        var bare = HeadScanner(limit: 100)
        #expect(bare.scan(Array("\r\n\r\nGET / HTTP/1.1\nHost: x\n\n".utf8)) == .complete(bytes: 28))
        var big = HeadScanner(limit: 16)
        #expect(big.scan(Array("GET / HTTP/1.1\r\n".utf8)) == .needMore)
        #expect(big.scan(Array("x".utf8)) == .tooLarge)
        var exact = HeadScanner(limit: 18)
        #expect(exact.scan(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == .complete(bytes: 18))
    }

    @Test func hostCheckAnswersOnlyNamesOfThisMachine() {
        let check = HostCheck(allowed: ["dropcut.example", "Render-1."])
        for good in ["localhost", "LOCALHOST:8181", "localhost.", "127.0.0.1", "127.0.0.1:8181", "127.3.4.5:1", "[::1]", "[::1]:8181",
                     "[::ffff:127.0.0.1]:80", "dropcut.example", "DROPCUT.example:9", "render-1", "render-1.:8181"] {
            #expect(check.refusal(of: good) == nil, "\(good) refused")
        }
        for bad in [nil, "", "evil.example", "evil.example:8181", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1:8181",
                    "[::2]:80", "::1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", "127.0.0.1:8x", "[::1", "[::1]x", "dropcut.example.evil",
                    "0x7f000001", "2130706433", "127.1"] {
            #expect(check.refusal(of: bad) != nil, "\(bad ?? "nil") answered")
        }
        #expect(HostCheck.isHostName("render-1.example.com") && HostCheck.isHostName("a.") && !HostCheck.isHostName("-a")
                && !HostCheck.isHostName("a..b") && !HostCheck.isHostName("a_b") && !HostCheck.isHostName("") && !HostCheck.isHostName("a:1")
                && !HostCheck.isHostName(String(repeating: "a", count: 64)))
    }

    @Test func absoluteFormAndBearerInAnyCase() {
        let absolute = HTTPRequest(method: "GET", target: "HTTP://127.0.0.1:8181/api/v1/jobs/x?y=1", headers: [("Host", "evil.example")], isLocalPeer: true)
        #expect(absolute.segments == ["api", "v1", "jobs", "x"] && absolute.query == ["y": "1"])
        #expect(absolute.host == "127.0.0.1:8181")
        #expect(HTTPRequest(method: "GET", target: "http://localhost:1", headers: [], isLocalPeer: true).segments == [])
        #expect(HTTPRequest(method: "GET", target: "https://localhost:1?x", headers: [], isLocalPeer: true).segments == [])
        #expect(HTTPRequest(method: "GET", target: "/metrics", headers: [("Host", "h:1")], isLocalPeer: true).host == "h:1")
        #expect(RequestAuthorization.bearerToken("Bearer abc") == "abc")
        #expect(RequestAuthorization.bearerToken("bearer abc") == "abc")
        #expect(RequestAuthorization.bearerToken("BEARER   abc  ") == "abc")
        #expect(RequestAuthorization.bearerToken("Basic abc") == nil)
        #expect(RequestAuthorization.bearerToken("Bearer") == nil)
        #expect(RequestAuthorization.bearerToken("Bearerabc") == nil)
        let auth = RequestAuthorization(token: "0123456789abcdefXYZ")
        #expect(auth.isAuthenticated(HTTPRequest(method: "GET", target: "/", headers: [("Authorization", "bearer 0123456789abcdefXYZ")], isLocalPeer: false)))
    }

    @Test func methodNotAllowedNamesTheAllowedOnes() async throws {
        #expect(APIRouter.allowedMethods(["api", "v1", "failed", "f", "x.mp4", "retry"]) == "POST")
        #expect(APIRouter.allowedMethods(["metrics"]) == "GET, HEAD")
        #expect(APIRouter.allowedMethods(["api", "v1", "jobs", "x", "thumbnail"]) == "GET")
        #expect(APIRouter.allowedMethods(["nothing"]) == nil)
    }

    @Test func multiLineReasonsKeepTheirLineBreaks() {
        let html = StatusPage.escapeLines("clip.mov: the recipe is wrong\n  output.fps: 'banana' is not a number\r\nthird <line>")
        #expect(html == "clip.mov: the recipe is wrong<br>  output.fps: &#39;banana&#39; is not a number<br>third &lt;line&gt;")
        #expect(!html.contains("\u{FFFD}"))
        #expect(StatusPage.escapeLines("a\u{1b}[31mb") == "a\u{FFFD}[31mb")
    }
}
