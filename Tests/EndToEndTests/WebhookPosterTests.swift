import DropcutDaemon
import Foundation
import DropcutSupport
import Testing
import TestSupport

/// The transport alone against the real receiver: what counts as delivered, and errors
/// that name the endpoint and say the cause in words.
@Suite(.tags(.slow)) struct WebhookPosterTests {
    @Test func onlyA2xxIsDeliveredAndFailuresSayWhy() async throws {
        let dir = try TemporaryDirectory()
        let secret = WebhookReceiver.newSecret()
        let receiver = try await WebhookReceiver(secret: secret, logPath: dir.file("received.jsonl"), fail: ["302", "hang", "404"], hang: 3)
        var endpoint = WebhookConfig(url: "http://127.0.0.1:\(receiver.port)/in", secret: try #require(WebhookConfig.secret(from: secret)))
        endpoint.timeout = .seconds(1)
        let poster = try WebhookPoster(endpoint: endpoint)
        let body = Data(#"{"type":"job.done"}"#.utf8)
        func attempt() throws(WebhookDeliveryError) -> Int { try poster.post(id: "msg_x_done", body: body) }

        // A redirect is not followed: a failure.
        #expect(throws: WebhookDeliveryError(url: endpoint.url, function: "curl_easy_perform", cause: .status(302))) { try attempt() }
        // No answer within the timeout.
        do {
            _ = try attempt()
            Issue.record("a hanging receiver counted as delivered")
        } catch {
            #expect(error.causeKind == "Timeout was reached", "\(error)")
            #expect(error.description.hasPrefix("POST \(endpoint.url): Timeout was reached"), "\(error)")
        }
        #expect(throws: WebhookDeliveryError(url: endpoint.url, function: "curl_easy_perform", cause: .status(404))) { try attempt() }
        #expect(try attempt() == 200)
        let requests = receiver.requests()
        #expect(requests.count == 4 && requests.allSatisfy { $0.signatureValid && $0.body == String(decoding: body, as: UTF8.self) })
        #expect(requests.map(\.id) == Array(repeating: "msg_x_done", count: 4))
    }

    /// Only http and https: a URL of any other scheme is refused by libcurl itself.
    @Test func otherProtocolsAreRefused() throws {
        let endpoint = WebhookConfig(url: "file:///etc/passwd", secret: [UInt8](repeating: 1, count: 32))
        let poster = try WebhookPoster(endpoint: endpoint)
        do {
            _ = try poster.post(id: "msg_x_done", body: Data("{}".utf8))
            Issue.record("posted to a file: URL")
        } catch {
            #expect(error.causeKind == "Unsupported protocol", "\(error)")
        }
    }
}
