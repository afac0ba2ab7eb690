import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The webhook receiver the delivery tests run: `webhook_receiver.py` beside this file, a
/// real HTTP server on 127.0.0.1 that checks each signature with Python's own hmac and
/// logs every request as a JSON line (see the script).
public final class WebhookReceiver: @unchecked Sendable {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("webhook_receiver.py").path

    /// One request as the receiver logged it.
    public struct Request {
        public var n: Int
        public var headers: [String: String]
        public var body: String
        public var signatureValid: Bool
        public var timestampFresh: Bool
        /// How it was answered: "200", "500", "hang" (answered only after the sender gave up).
        public var answer: String
        public var id: String { headers["webhook-id"] ?? "" }
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    public let process: Process
    public let logPath: String
    public let port: Int

    /// Starts the receiver on `port` (0: any free port) and waits until it listens.
    public init(secret: String, logPath: String, port: Int = 0, fail: [String] = [], hang: Double = 3) async throws {
        self.logPath = logPath
        let portFile = logPath + ".port"
        unlink(portFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script, "--secret", secret, "--log", logPath, "--port", "\(port)",
                             "--port-file", portFile, "--fail", fail.joined(separator: ","), "--hang", "\(hang)"]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Looked for once more after the deadline: on a loaded machine one sleep can outlast
        // it, and the receiver may have listened long since.
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let chosen = Int(text) {
                self.port = chosen
                return
            }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // SIGKILL, as `stop` does (SIGTERM may be ignored, inherited so): a receiver left
        // running holds the test process's output open, and `swift test` waits on it.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: portFile])
    }

    /// Every request so far, in the order received.
    public func requests() -> [Request] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Request(n: object["n"] as? Int ?? -1, headers: object["headers"] as? [String: String] ?? [:],
                           body: object["body"] as? String ?? "", signatureValid: object["signature_valid"] as? Bool ?? false,
                           timestampFresh: object["timestamp_fresh"] as? Bool ?? false, answer: object["answer"] as? String ?? "")
        }.sorted { $0.n < $1.n }
    }

    /// The requests answered 200: the deliveries.
    public func delivered() -> [Request] { requests().filter { $0.answer == "200" } }

    /// SIGKILL: the receiver holds nothing, and a test process may pass SIGTERM on ignored.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// A new `whsec_` secret: 32 random bytes.
    public static func newSecret() -> String {
        "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The config's `webhooks:` for one endpoint on this host.
    public static func settings(port: Int, secret: String, timeout: String = "1s", extra: String = "") -> String {
        """
        webhooks:
          - url: http://127.0.0.1:\(port)/hooks/dropcut
            secret: \(secret)
            timeout: \(timeout)
        \(extra)
        """
    }
}
