import Foundation
internal import NIOCore

/// The first handler of each connection, before the HTTP parser: keeps the connection in
/// `HTTPConnections` (the caps) from its first moment to its close, gives its request a
/// deadline from its first byte — a client that trickles a header line now and then is
/// closed when it runs out, however lively it looks to an idle timer — and answers a head
/// over `HeadScanner.limit` with 431 itself, then closes cleanly: the answer sent, its
/// side shut, the rest of the client's head read and dropped for a moment (closing with
/// unread bytes would reset the connection and lose the answer).
final class HTTPConnectionGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent down the pipeline (an outbound user event) by `HTTPConnectionHandler`.
    enum Progress {
        /// The request is whole: its deadline is over.
        case whole
        /// An event stream is being sent.
        case streaming
    }

    /// How long a refused connection's remaining bytes are read before it is closed, and how many.
    static let linger = TimeAmount.seconds(2)
    static let lingerBytes = 1 << 20

    private let connections: HTTPConnections
    private let id: Int
    private let requestTimeout: TimeAmount
    private var scanner: HeadScanner
    private var headDone = false
    private var whole = false
    private var draining = false
    private var drained = 0
    private var deadline: Scheduled<Void>?
    private var lingering: Scheduled<Void>?

    init(connections: HTTPConnections, id: Int, requestTimeout: TimeAmount, maximumHeadBytes: Int) {
        self.connections = connections
        self.id = id
        self.requestTimeout = requestTimeout
        scanner = HeadScanner(limit: maximumHeadBytes)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if draining {
            drained += buffer.readableBytes
            if drained > Self.lingerBytes { context.close(promise: nil) }
            return
        }
        if !headDone {
            if deadline == nil && buffer.readableBytes > 0 { startDeadline(context: context) }
            switch buffer.readableBytesView.withContiguousStorageIfAvailable({ scanner.scan($0) }) ?? scanner.scan(buffer.readableBytesView) {
            case .needMore: break
            case .complete: headDone = true
            case .tooLarge:
                refuseOversizeHead(context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? Progress else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch progress {
        case .whole:
            whole = true
            deadline?.cancel()
            deadline = nil
            connections.set(id, .answering)
        case .streaming:
            connections.set(id, .streaming)
        }
        promise?.succeed(())
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        lingering?.cancel()
        connections.remove(id)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        lingering?.cancel()
    }

    /// The request must be whole `requestTimeout` after its first byte.
    private func startDeadline(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: requestTimeout) {
            let (handler, context) = bound.value
            guard !handler.whole, !handler.draining else { return }
            context.close(promise: nil)
        }
    }

    private func refuseOversizeHead(context: ChannelHandlerContext) {
        draining = true
        deadline?.cancel()
        deadline = nil
        let text = "the request's head is over \(scanner.limit) bytes\n"
        let head = "HTTP/1.1 431 \(HTTPResponse.reason(431))\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(text.utf8.count)\r\nconnection: close\r\ncache-control: no-store\r\n\r\n"
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + text)), promise: written)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            // Our side shut: the client reads the answer to its end. Its remaining bytes
            // are read and dropped until it closes, for `linger` at most.
            bound.value.close(mode: .output, promise: nil)
        }
        lingering = context.eventLoop.scheduleTask(in: Self.linger) { bound.value.close(promise: nil) }
    }
}
