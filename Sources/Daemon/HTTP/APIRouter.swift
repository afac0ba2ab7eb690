import Foundation
import Logging
import DropcutPipeline
import Synchronization

/// Answers the listener's requests (docs/connect.md): metrics, the status API, the status
/// page and its live events, thumbnails by job id, login, and retry. No NIO here: requests
/// and responses are plain values, so every route is tested without a socket too.
package final class APIRouter: Sendable {
    let config: DaemonConfig
    let metrics: DaemonMetrics
    let board: StatusBoard
    let authorization: RequestAuthorization
    let hosts: HostCheck
    let logger: Logger
    /// Recent thumbnails by job id (a page shows a few; each is one decode of a first frame).
    private let thumbnails = Mutex<[(job: String, jpeg: [UInt8])]>([])
    /// Two thumbnails decoded at once at most (each in a worker process of its own).
    private let decoding = AsyncGate(limit: 2)
    /// How often the event stream looks for a new status, and sends a keep-alive comment.
    let eventInterval: Duration
    static let keepAliveEvery = 30

    package init(config: DaemonConfig, metrics: DaemonMetrics, board: StatusBoard, logger: Logger,
                 eventInterval: Duration = .milliseconds(250)) {
        self.config = config
        self.metrics = metrics
        self.board = board
        self.authorization = RequestAuthorization(token: config.http?.token)
        self.hosts = HostCheck(allowed: config.http?.allowedHosts ?? [])
        self.logger = logger
        self.eventInterval = eventInterval
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        // RFC 9112 §3.2: more than one Host header is a 400, whatever the values — the
        // host check reads one, and a proxy in front may have routed by another.
        let hostHeaders = request.headers.filter { $0.name == "host" }.count
        if hostHeaders > 1 { return .text(400, "a request has one Host header, this one has \(hostHeaders)") }
        guard let segments = request.segments else { return .text(400, "the path must be a plain absolute path (no . or .. segments, no encoded / or NUL)") }
        let method = request.method
        // Reached on loopback: only names of this machine (DNS rebinding), before anything
        // else, the login page included.
        if request.onLoopback, let refusal = hosts.refusal(of: request.host) {
            return .text(421, "misdirected request: \(refusal)")
        }
        // The login page needs no token (it is how a browser gets one).
        if segments == ["login"] {
            switch method {
            case "GET", "HEAD": return loginPage(failed: false)
            case "POST": return login(request)
            default: return Self.notAllowed("GET, POST")
            }
        }
        if let refusal = authorization.refusalToRead(request) { return refusal }
        switch (method, segments) {
        case ("GET", ["metrics"]), ("HEAD", ["metrics"]):
            return HTTPResponse(status: 200, headers: [("content-type", DaemonMetrics.contentType)] + HTTPResponse.common,
                                body: .bytes(metrics.exposition()))
        case ("GET", ["api", "v1", "status"]), ("HEAD", ["api", "v1", "status"]):
            return .json(StatusReport(config: config, readFarm: false).json())
        case ("GET", ["api", "v1", "events"]):
            return events()
        case let ("GET", seg) where seg.count == 4 && seg[0...2] == ["api", "v1", "jobs"]:
            return job(seg[3])
        case let ("GET", seg) where seg.count == 5 && seg[0...2] == ["api", "v1", "jobs"] && seg[4] == "thumbnail":
            return await thumbnail(seg[3])
        case let ("POST", seg) where seg.count == 6 && seg[0...2] == ["api", "v1", "failed"] && seg[5] == "retry":
            return retry(folder: seg[3], name: seg[4], request)
        case ("GET", []), ("HEAD", []):
            let loggedIn = authorization.isAuthenticated(request)
            let page = StatusPage(report: StatusReport(config: config, readFarm: false), folders: config.folders,
                                  canRetry: loggedIn, offerLogin: authorization.token != nil && !loggedIn)
            return .html(page.html())
        default:
            if let allowed = Self.allowedMethods(segments) { return Self.notAllowed(allowed) }
            return .text(404, "no such page: \(request.target)")
        }
    }

    /// The methods a path answers (the 405's `Allow`, RFC 9110 §15.5.6), nil for a path
    /// that is no route.
    static func allowedMethods(_ segments: [String]) -> String? {
        switch segments {
        case [], ["metrics"], ["api", "v1", "status"]: return "GET, HEAD"
        case ["api", "v1", "events"]: return "GET"
        case let seg where seg.count == 4 && seg[0...2] == ["api", "v1", "jobs"]: return "GET"
        case let seg where seg.count == 5 && seg[0...2] == ["api", "v1", "jobs"] && seg[4] == "thumbnail": return "GET"
        case let seg where seg.count == 6 && seg[0...2] == ["api", "v1", "failed"] && seg[5] == "retry": return "POST"
        default: return nil
        }
    }

    static func notAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.text(405, "method not allowed here (allowed: \(allowed))")
        response.headers.append(("allow", allowed))
        return response
    }

    /// Job ids are what `JobRecord.newID` makes: letters, digits and `-`.
    static func isJobID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d }
    }

    func record(_ id: String) -> JobRecord? {
        guard Self.isJobID(id) else { return nil }
        return JobStore(stateDirectory: config.stateDirectory).record(id)
    }

    func job(_ id: String) -> HTTPResponse {
        guard let record = record(id) else { return .text(404, "no job \(id)") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(record) else { return .text(500, "job \(id) cannot be encoded") }
        return .json(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// A done job's poster (a JPEG deliverable) as it is, else its video output's first
    /// frame made small — found through the job's record, only inside its folder's outbox:
    /// no path from the request ever names a file.
    func thumbnail(_ id: String) async -> HTTPResponse {
        guard let record = record(id), record.state == .done, let folder = config.folder(named: record.folder) else {
            return .text(404, "no finished job \(id)")
        }
        if let cached = thumbnails.withLock({ $0.first { $0.job == id }?.jpeg }) { return Self.jpeg(cached) }
        let outbox = ConfigLoader.canonical(folder.outbox)
        func inOutbox(_ path: String?) -> String? {
            guard let path else { return nil }
            let real = ConfigLoader.canonical(path)
            var info = stat()
            guard ConfigLoader.isInside(real, outbox), real != outbox, stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return real
        }
        let set = record.deliverables ?? []
        if let poster = set.first(where: { entry in entry.kind == "poster" && [".jpg", ".jpeg"].contains { entry.name.lowercased().hasSuffix($0) } }),
           let path = inOutbox(poster.publishedPath), let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 {
            return Self.jpeg(remember(id, [UInt8](data)))
        }
        let video = set.first { $0.kind == "video" || $0.isSingleOutput }?.publishedPath
        guard let path = inOutbox(video) else { return .text(404, "job \(id) has no output in its outbox to show") }
        do {
            // In a worker process, as renders are: a decoder crash ends that process only.
            let jpeg = try await decoding.run { try await ThumbnailWorker.jpeg(of: path, job: id, limits: config.limits) }
            return Self.jpeg(remember(id, jpeg))
        } catch {
            logger.warning("thumbnail of job \(id) (\(path)): \(error)")
            return .text(500, "no thumbnail of job \(id): \(error)")
        }
    }

    private func remember(_ id: String, _ jpeg: [UInt8]) -> [UInt8] {
        thumbnails.withLock { cache in
            cache.removeAll { $0.job == id }
            cache.append((id, jpeg))
            if cache.count > 64 { cache.removeFirst(cache.count - 64) }
        }
        return jpeg
    }

    static func jpeg(_ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("content-type", "image/jpeg"), ("x-content-type-options", "nosniff"), ("cache-control", "private, max-age=3600")],
                     body: .bytes(bytes))
    }

    /// Server-sent events: `event: status` with the daemon's status JSON (running jobs with
    /// progress and speed, the queue) each time it changes, and a comment now and then so
    /// proxies keep the connection.
    func events() -> HTTPResponse {
        let board = self.board, interval = eventInterval
        let stream = AsyncStream<[UInt8]> { continuation in
            let task = Task {
                var shown = -1, quiet = 0
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.sortedKeys]
                continuation.yield(Array("retry: 2000\n\n".utf8))
                while !Task.isCancelled {
                    let (generation, status) = board.latest
                    if generation != shown, let status, let data = try? encoder.encode(status) {
                        shown = generation
                        quiet = 0
                        continuation.yield(Array("event: status\ndata: ".utf8) + [UInt8](data) + Array("\n\n".utf8))
                    } else {
                        quiet += 1
                        if quiet >= Self.keepAliveEvery {
                            quiet = 0
                            continuation.yield(Array(": keep-alive\n\n".utf8))
                        }
                    }
                    try? await Task.sleep(for: interval)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return HTTPResponse(status: 200, headers: [("content-type", "text/event-stream"), ("cache-control", "no-store"),
                                                   ("x-content-type-options", "nosniff")], body: .events(stream))
    }

    func retry(folder: String, name: String, _ request: HTTPRequest) -> HTTPResponse {
        if let refusal = authorization.refusalToChange(request) { return refusal }
        do {
            let moved = try FailedClipRetry.retry(name, folder: folder, config: config)
            // Named by its printable form (the name asked for may hold a newline).
            let clip = moved.last.map { ($0 as NSString).lastPathComponent } ?? RawFileName(bytes: Array(name.utf8)).printable
            logger.notice("retry \(clip) (folder \(folder)) asked over HTTP: moved back to the inbox", metadata: [
                "DROPCUT_FOLDER": "\(folder)", "DROPCUT_INPUT": "\(moved.last ?? name)"])
            let list = moved.map { "\"\(Self.jsonEscape($0))\"" }.joined(separator: ", ")
            return .json("{\"moved\": [\(list)]}\n")
        } catch {
            switch error {
            case .noSuchFolder, .notFailed: return .text(404, error.description)
            case .badName: return .text(400, error.description)
            case .inboxHasIt: return .text(409, error.description)
            case .system: return .text(500, error.description)
            }
        }
    }

    func loginPage(failed: Bool) -> HTTPResponse {
        guard authorization.token != nil else {
            return .html("<!doctype html><title>dropcut</title><p>No token is configured (http.token): nothing to log in to. <a href=\"/\">Status</a></p>")
        }
        var response = HTTPResponse.html("""
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>dropcut: log in</title></head><body>
            \(failed ? "<p class=\"error\">That is not the token.</p>" : "")
            <form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password"></label>
            <button type="submit">Log in</button></form></body></html>
            """)
        if failed { response.status = 401 }
        return response
    }

    /// The login form's POST: the token as a form field; right, a session cookie and back
    /// to the page.
    func login(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = authorization.refusalOfOrigin(request) { return refusal }
        guard let expected = authorization.token, let value = authorization.cookieValue else { return loginPage(failed: false) }
        let fields = HTTPRequest.form(String(decoding: request.body, as: UTF8.self))
        guard let token = fields["token"], RequestAuthorization.constantTimeEqual(token, expected) else {
            logger.warning("a wrong token was given at /login")
            return loginPage(failed: true)
        }
        return HTTPResponse(status: 303, headers: [
            ("location", "/"),
            ("set-cookie", "\(RequestAuthorization.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict"),
        ] + HTTPResponse.common)
    }

    static func jsonEscape(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
