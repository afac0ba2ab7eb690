import Foundation
internal import CDropcutCurl
import DropcutPipeline
import DropcutSupport
import DropcutDigest

/// Posts signed events to one endpoint over libcurl (not AsyncHTTPClient: its build would
/// add minutes to every CI run, libcurl gives TLS, timeouts and no redirects for nothing).
/// Owns its `CURL` handle, freed in deinit; one request at a time (a delivery loop uses it
/// from one blocking thread after another, never two at once), and reused, so a
/// receiver's keep-alive connection is too.
package final class WebhookPoster {
    package let url: String
    private let secret: [UInt8]
    private let handle: UnsafeMutableRawPointer
    /// The most of a receiver's answer that is kept; the rest is read and dropped (the
    /// status is what counts, and a receiver must not fill the daemon's memory).
    static let maximumResponse = 64 * 1024

    /// Once per process, before the first handle (curl_easy_init would do it lazily, but
    /// not thread-safely on every libcurl).
    private static let global: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    package init(endpoint: WebhookConfig) throws(WebhookDeliveryError) {
        _ = Self.global
        guard let handle = curl_easy_init() else {
            throw WebhookDeliveryError(url: endpoint.url, function: "curl_easy_init", cause: .setup("libcurl could not make a handle"))
        }
        self.handle = handle
        self.url = endpoint.url
        self.secret = endpoint.secret
        let milliseconds = Int(endpoint.timeout.wholeMilliseconds)
        try set(CURLOPT_URL, string: endpoint.url)
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        // Straight to the endpoint: an http_proxy a service happens to inherit is not used.
        try set(CURLOPT_PROXY, string: "")
        try set(CURLOPT_USERAGENT, string: "dropcut/\(DropcutVersion.current)")
        try set(CURLOPT_NOSIGNAL, 1)             // no SIGALRM for DNS timeouts in a threaded daemon
        try set(CURLOPT_FOLLOWLOCATION, 0)       // a 3xx is a failure, never followed
        try set(CURLOPT_TIMEOUT_MS, milliseconds)
        try set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        try set(CURLOPT_POST, 1)
        try set(CURLOPT_NOPROGRESS, 0)           // the transfer callback below sees cancellation
    }

    deinit { curl_easy_cleanup(handle) }

    /// The `webhook-signature` value: `v1,` and the base64 of HMAC-SHA256 over
    /// `<id>.<timestamp>.<body>` (Standard Webhooks).
    package static func signature(id: String, timestamp: Int64, body: Data, secret: [UInt8]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + Array(body)
        return "v1," + Data(HMACSHA256.authenticationCode(for: signed, key: secret)).base64EncodedString()
    }

    /// Posts `body` as event `id`, signed now. Returns the 2xx status; throws for anything
    /// else. Blocking: call it from a thread of its own.
    package func post(id: String, body: Data, now: Date = Date(), cancellation: Cancellation = Cancellation()) throws(WebhookDeliveryError) -> Int {
        let timestamp = Int64(now.timeIntervalSince1970)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for header in ["content-type: application/json", "webhook-id: \(id)", "webhook-timestamp: \(timestamp)",
                       "webhook-signature: \(Self.signature(id: id, timestamp: timestamp, body: body, secret: secret))",
                       "expect:"] {   // no `Expect: 100-continue` wait on larger bodies
            guard let appended = curl_slist_append(headers, header) else {
                throw WebhookDeliveryError(url: url, function: "curl_slist_append", cause: .setup("out of memory"))
            }
            headers = appended
        }
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headers))
        let response = Response(cancellation: cancellation)
        let context = Unmanaged.passUnretained(response).toOpaque()
        defer { withExtendedLifetime(response) {} }
        try check(dropcut_curl_setopt_write(handle) { data, size, count, context in
            guard let context, let data else { return 0 }
            let response = Unmanaged<Response>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let room = max(0, WebhookPoster.maximumResponse - response.body.count)
            if room > 0 {
                response.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length)))
            }
            return length   // beyond the cap: read and dropped
        }, "curl_easy_setopt(CURLOPT_WRITEFUNCTION)")
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(dropcut_curl_setopt_xferinfo(handle) { context, _, _, _, _ in
            guard let context else { return 0 }
            return Unmanaged<Response>.fromOpaque(context).takeUnretainedValue().cancellation.isCancelled ? 1 : 0
        }, "curl_easy_setopt(CURLOPT_XFERINFOFUNCTION)")
        try set(CURLOPT_XFERINFODATA, pointer: context)
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try set(CURLOPT_POSTFIELDSIZE, body.count)
        let code: CURLcode = body.withUnsafeBytes { bytes in
            _ = dropcut_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress)
            return errorText.withUnsafeMutableBufferPointer { buffer in
                _ = dropcut_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
                defer { _ = dropcut_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil) }
                return curl_easy_perform(handle)
            }
        }
        // Nothing of this call's may outlive it in the handle.
        _ = dropcut_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        _ = dropcut_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        guard code == CURLE_OK else {
            if code == CURLE_ABORTED_BY_CALLBACK && cancellation.isCancelled {
                throw WebhookDeliveryError(url: url, function: "curl_easy_perform", cause: .cancelled)
            }
            let general = String(cString: curl_easy_strerror(code))
            let specific = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebhookDeliveryError(url: url, function: "curl_easy_perform",
                                       cause: .transport(general, detail: specific.isEmpty || specific == general ? nil : specific))
        }
        var status = 0
        _ = dropcut_curl_response_code(handle, &status)
        guard (200..<300).contains(status) else {
            throw WebhookDeliveryError(url: url, function: "curl_easy_perform", cause: .status(status))
        }
        return status
    }

    /// What a transfer's callbacks share: the answer so far, and whether to stop.
    private final class Response {
        var body: [UInt8] = []
        let cancellation: Cancellation
        init(cancellation: Cancellation) { self.cancellation = cancellation }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(WebhookDeliveryError) {
        try check(dropcut_curl_setopt_long(handle, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, string: String) throws(WebhookDeliveryError) {
        // libcurl copies string options (all but POSTFIELDS).
        try check(string.withCString { dropcut_curl_setopt_pointer(handle, option, $0) }, "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(WebhookDeliveryError) {
        try check(dropcut_curl_setopt_pointer(handle, option, pointer), "curl_easy_setopt(\(option.rawValue))")
    }

    private func check(_ code: CURLcode, _ function: String) throws(WebhookDeliveryError) {
        guard code != CURLE_OK else { return }
        throw WebhookDeliveryError(url: url, function: function, cause: .setup(String(cString: curl_easy_strerror(code))))
    }
}
