import Foundation
import Testing
import TestSupport

/// The signature checks docs/connect.md gives receivers, in Python and in Node, run as
/// they are printed on a real delivery from the daemon: they accept it, and refuse it with
/// one byte of its body changed.
@Suite struct ConnectDocsTests {
    /// The fenced block of `language` after the heading `heading` in docs/connect.md.
    static func snippet(_ language: String, after heading: String) throws -> String {
        let text = try String(contentsOfFile: Repository.path("docs/connect.md"), encoding: .utf8)
        let section = try #require(text.range(of: heading)).upperBound
        let open = try #require(text.range(of: "```\(language)\n", range: section..<text.endIndex))
        let close = try #require(text.range(of: "\n```", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    static let pythonHarness = """

        import json, sys
        case = json.load(open(sys.argv[1]))
        print("true" if verify(case["secret"], case["headers"], case["body"].encode()) else "false")

        """
    static let nodeHarness = """

        const input = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"));
        console.log(verify(input.secret, input.headers, Buffer.from(input.body, "utf8")) ? "true" : "false");

        """

    @Test func documentedVerifiersAcceptARealDeliveryAndRefuseATamperedOne() async throws {
        let secret = WebhookReceiver.newSecret()
        let harness = try DaemonHarness(settle: 0.2, poll: 0.1)
        let receiver = try await WebhookReceiver(secret: secret, logPath: harness.dir.file("received.jsonl"))
        try harness.writeConfig(extraSettings: WebhookReceiver.settings(port: receiver.port, secret: secret))
        let daemon = try harness.startDaemon()
        try harness.drop("clip.mp4")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { !receiver.delivered().isEmpty }, "\(harness.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        let delivery = try #require(receiver.delivered().first)

        let python = try Self.snippet("python", after: "### Verify a delivery")
        let node = try Self.snippet("js", after: "### Verify a delivery")
        try (python + Self.pythonHarness).write(toFile: harness.dir.file("verify.py"), atomically: true, encoding: .utf8)
        try (node + Self.nodeHarness).write(toFile: harness.dir.file("verify.cjs"), atomically: true, encoding: .utf8)
        var tampered = delivery.body
        tampered = tampered.replacingOccurrences(of: "\"job.done\"", with: "\"job.dona\"")
        #expect(tampered != delivery.body)
        for (name, body, expected) in [("real", delivery.body, "true"), ("tampered", tampered, "false")] {
            let input = harness.dir.file("\(name).json")
            let object: [String: Any] = ["secret": secret, "headers": delivery.headers, "body": body]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: input))
            let py = try await Command.run("python3", [harness.dir.file("verify.py"), input])
            #expect(py.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected, "Python on the \(name) delivery: \(py.stdout)\(py.stderr)")
            let js = try await Command.run("node", [harness.dir.file("verify.cjs"), input])
            #expect(js.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected, "Node on the \(name) delivery: \(js.stdout)\(js.stderr)")
        }
    }
}
