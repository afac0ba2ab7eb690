import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// The `http:` and `webhooks:` keys: what they accept, and every mistake at its line.
@Suite struct ConnectConfigTests {
    static let folders = """
        folders:
          - name: social
            inbox: in
            outbox: out
            failed: failed
            after_success: delete

        """

    func load(_ top: String) throws(ConfigError) -> DaemonConfig {
        let dir = try! TemporaryDirectory()
        try! FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        return try withExtendedLifetime(dir) { () throws(ConfigError) -> DaemonConfig in
            try ConfigLoader.load(yaml: top + "\n" + Self.folders, path: dir.file("dropcut.yaml"))
        }
    }

    func errors(_ top: String) -> String {
        do {
            _ = try load(top)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func listenAddressesDecode() throws {
        #expect(try load("http:\n  listen: 127.0.0.1:8181").http?.listen == .tcp(host: "127.0.0.1", port: 8181))
        #expect(try load("http:\n  listen: \"[::1]:9000\"").http?.listen == .tcp(host: "::1", port: 9000))
        #expect(try load("http:\n  listen: localhost:80").http?.listen == .tcp(host: "127.0.0.1", port: 80))
        #expect(try load("http:\n  listen: /run/dropcut/http.sock").http?.listen == .unix(path: "/run/dropcut/http.sock"))
        #expect(try load("http:\n  listen: systemd").http?.listen == .systemd)
        let withToken = try load("http:\n  listen: 0.0.0.0:8181\n  token: abcdefghijklmnopqrstuvwx")
        #expect(withToken.http?.token == "abcdefghijklmnopqrstuvwx")
    }

    /// `http.allowed_hosts`: host names, lower-cased; anything else refused at its own line,
    /// and a list past 64 names refused.
    @Test func allowedHostsAreHostNamesCheckedAtTheirLine() throws {
        let config = try load("http:\n  listen: 127.0.0.1:8181\n  allowed_hosts: [Render-1.LAN, dropcut]")
        #expect(config.http?.allowedHosts == ["render-1.lan", "dropcut"])
        #expect(try load("http:\n  listen: 127.0.0.1:8181").http?.allowedHosts == [])
        for bad in ["evil.example:80", "127.0.0.1", "a_b", "-x", "a..b", "http://x", "", String(repeating: "a", count: 64)] {
            let text = errors("http:\n  listen: 127.0.0.1:8181\n  allowed_hosts:\n    - ok.example\n    - \"\(bad)\"")
            #expect(text.contains("dropcut.yaml:5:") && text.contains("is not a host name"), "\(bad.debugDescription): \(text)")
        }
        let many = (0...64).map { "h\($0)" }.joined(separator: ", ")
        #expect(errors("http:\n  listen: 127.0.0.1:8181\n  allowed_hosts: [\(many)]").contains("at most 64"))
        #expect(errors("http:\n  listen: 127.0.0.1:8181\n  allowed_hosts: nope").contains("allowed_hosts"))
    }

    @Test func badListenersAreRefusedAtTheirLine() {
        for bad in ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "example.com:80", "[::1:80", "1.2.3.4.5:80", ":80", "127.0.0.1:8o"] {
            let text = errors("http:\n  listen: \"\(bad)\"")
            #expect(text.contains("dropcut.yaml:2:") && text.contains("http.listen must be"), "\(bad): \(text)")
        }
        #expect(errors("http:\n  token: abcdefghijklmnopqrstuvwx").contains("http.listen is missing"))
        #expect(errors("http:\n  listen: 10.0.0.5:8181").contains("is not a loopback address"))
        #expect(errors("http:\n  listen: \"[::]:8181\"").contains("is not a loopback address"))
        #expect(errors("http:\n  listen: 127.0.0.1:8181\n  token: short").contains("http.token must be at least 16 characters"))
        #expect(errors("http:\n  listen: 127.0.0.1:8181\n  token: \"has a space in it, sixteen+\"").contains("printable ASCII"))
        #expect(errors("http:\n  listen: 127.0.0.1:8181\n  port: 3").contains("port"))
    }

    @Test func webhooksDecodeWithDefaults() throws {
        let secret = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let config = try load("""
            webhooks:
              - url: https://hooks.example/dropcut
                secret: \(secret)
              - url: http://127.0.0.1:9/x
                secret: \(secret)
                events: [job.failed, job.abandoned]
                max_age: 2h
                timeout: 3s
            """)
        #expect(config.webhooks.count == 2)
        #expect(config.webhooks[0].events == Set(WebhookEventKind.allCases))
        #expect(config.webhooks[0].maxAge == .seconds(86400))
        #expect(config.webhooks[0].secret == (0..<32).map { UInt8($0) })
        #expect(config.webhooks[1].events == [.failed, .abandoned])
        #expect(config.webhooks[1].maxAge == .seconds(7200))
        #expect(config.webhooks[1].timeout == .seconds(3))
    }

    @Test func badWebhooksAreRefusedAtTheirLine() {
        let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        func hook(_ fields: String) -> String { errors("webhooks:\n  - " + fields.replacingOccurrences(of: "\n", with: "\n    ")) }
        #expect(hook("url: ftp://example.com/x\nsecret: \(secret)").contains("must be an http:// or https:// address"))
        #expect(hook("url: https://user:pw@example.com/x\nsecret: \(secret)").contains("no user, password"))
        #expect(hook("url: https://example.com/x\nsecret: notasecret").contains("whsec_"))
        #expect(hook("url: https://example.com/x\nsecret: whsec_\(Data(repeating: 1, count: 8).base64EncodedString())").contains("24 to 64 bytes"))
        #expect(hook("url: https://example.com/x\nsecret: \(secret)\nevents: [job.started]").contains("'job.started' is not an event"))
        #expect(hook("url: https://example.com/x\nsecret: \(secret)\nmax_age: 10s").contains("max_age must be between"))
        #expect(hook("url: https://example.com/x\nsecret: \(secret)\ntimeout: 500").contains("timeout must be between"))
        #expect(hook("url: https://example.com/x").contains("needs a url and a secret"))
    }

    /// Random text as `listen`: a value or a line-numbered error, never a trap.
    @Test func listenFuzz() {
        var random = SplitMix64(state: 31)
        let alphabet = Array("0123456789abcdef:[]./%-x ")
        for _ in 0..<2000 {
            let length = Int(random.next() % 24)
            let text = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            let result = errors("http:\n  listen: \"\(text)\"\n  token: abcdefghijklmnopqrstuvwx")
            #expect(result.isEmpty || result.contains("dropcut.yaml:"), "\(text): \(result)")
        }
    }
}
