import Foundation
import Logging
internal import NIOCore
internal import NIOHTTP1

/// One connection of the listener: reads a request whole — refusing a body over
/// `maximumBodyBytes` (413) without keeping it; a head over `maximumHeadBytes` never gets
/// here, `HTTPConnectionGuard` answers it 431 — has `APIRouter` answer it off the event
/// loop, writes the answer, and closes (one request per connection: nothing to pipeline,
/// nothing to keep alive but an event stream). A connection that sends nothing for the
/// server's idle timeout before its request is whole is closed, and the guard closes one
/// whose request is not whole by its deadline (a client that opens connections and
/// trickles bytes must not hold them).
final class HTTPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let maximumHeadBytes = 16 << 10
    static let maximumBodyBytes = 64 << 10

    private let router: APIRouter
    private let isLocalPeer: Bool
    private let onLoopback: Bool
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var refusal: Int?
    private var answered = false
    /// A HEAD request: the answer's head only.
    private var isHead = false
    private var stream: Task<Void, Never>?

    init(router: APIRouter, isLocalPeer: Bool, onLoopback: Bool) {
        self.router = router
        self.isLocalPeer = isLocalPeer
        self.onLoopback = onLoopback
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(received):
            head = received
            body = []
            if let length = received.headers.first(name: "content-length").flatMap({ Int($0) }), length > Self.maximumBodyBytes {
                refusal = 413
            }
        case var .body(buffer):
            guard refusal == nil else { return }
            guard body.count + buffer.readableBytes <= Self.maximumBodyBytes else {
                refusal = 413
                body = []
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head, !answered else { return }
            answered = true
            isHead = head.method == .HEAD
            // Whole: its deadline is over, and it is no longer given up for a newcomer.
            context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.whole, promise: nil)
            if let refusal {
                write(HTTPResponse.text(refusal, "the request's body is over \(Self.maximumBodyBytes) bytes"), context: context)
                return
            }
            // RFC 9112 §3.2: an HTTP/1.1 request without a Host header is a 400.
            if head.version == .http1_1 && !head.headers.contains(name: "host") && HTTPRequest.originForm(of: head.uri).authority == nil {
                write(HTTPResponse.text(400, "an HTTP/1.1 request needs a Host header"), context: context)
                return
            }
            let request = HTTPRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                                      body: body, isLocalPeer: isLocalPeer, onLoopback: onLoopback)
            body = []
            let router = self.router, loop = context.eventLoop
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
            Task {
                let response = await router.respond(to: request)
                loop.execute { bound.value.handler.write(response, context: bound.value.context) }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stream?.cancel()
        stream = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Idle before the request was whole: closed. (An answer being streamed is not
        // waiting for the client.)
        if event is IdleStateHandler.IdleStateEvent, !answered {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Writes `response` and closes the connection once it is sent (an event stream: as
    /// its chunks come, until it ends or the client goes).
    private func write(_ response: HTTPResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.replaceOrAdd(name: "connection", value: "close")
        let status = HTTPResponseStatus(statusCode: response.status, reasonPhrase: HTTPResponse.reason(response.status))
        switch response.body {
        case let .bytes(bytes):
            headers.replaceOrAdd(name: "content-length", value: String(bytes.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            if !bytes.isEmpty && !isHead { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
            finish(context: context)
        case let .events(events):
            context.triggerUserOutboundEvent(HTTPConnectionGuard.Progress.streaming, promise: nil)
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            let loop = context.eventLoop
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
            stream = Task {
                for await chunk in events {
                    loop.execute {
                        let (handler, context) = bound.value
                        context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))), promise: nil)
                    }
                }
                loop.execute { bound.value.handler.finish(context: bound.value.context) }
            }
        }
    }

    private func finish(context: ChannelHandlerContext) {
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        done.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
    }
}
