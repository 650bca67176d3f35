import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Sits after the HTTP/2 handler and carries each request on a stream of its own as frames
/// written and read here, with no channel per stream: a stream channel (its pipeline, its
/// promises, its multiplexer bookkeeping) cost more CPU than the push it carried. Frames of the
/// connection itself (SETTINGS, PING, GOAWAY) go on to `ConnectionObserver`.
///
/// A request's completion gets the first final HEADERS and the DATA up to END_STREAM, or a
/// `Failure`: `.closed` when the server left the stream unprocessed
/// (REFUSED_STREAM, or a GOAWAY below it, which NIO reports as CANCEL), `.timedOut` at its
/// timeout (the stream is then reset, so a late answer is never mistaken for another's), and
/// `.lost` otherwise (reset, connection lost); each saying whether the request had been fully
/// written, which `HTTP2Connection.send` needs to tell "not sent" from "maybe delivered".
final class PushStreamHandler: ChannelDuplexHandler {
    /// Why a stream brought no answer, and whether its request had been fully written.
    struct Failure: Error {
        let reason: ConnectionFailure
        let written: Bool
    }

    /// Who gets a request's answer, once, on the event loop: a closure, or the continuation of
    /// the task awaiting it (`HTTP2Connection.send`), resumed directly (a closure around it was an
    /// allocation per push). Not a promise: the future, its callback list and its hop to an
    /// awaiting task were a tenth of the cost of a request here.
    enum Completion: Sendable {
        case call(@Sendable (Result<PushHTTPResponse, Failure>) -> Void)
        case resume(UnsafeContinuation<Result<PushHTTPResponse, Failure>, Never>)

        func callAsFunction(_ result: Result<PushHTTPResponse, Failure>) {
            switch self {
            case .call(let call): call(result)
            case .resume(let continuation): continuation.resume(returning: result)
            }
        }
    }

    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A class, changed through the reference the dictionary holds: a struct changed in place in
    /// the dictionary (`streams[id]?.response = …`) went through its modify accessors, nested
    /// coroutines whose frames were each allocated, about seven allocations per request.
    private final class Stream {
        let completion: Completion
        let deadline: NIODeadline
        var written = false
        var response: PushHTTPResponse?

        init(completion: Completion, deadline: NIODeadline) {
            self.completion = completion
            self.deadline = deadline
        }
    }

    /// Half the connection's initial receive window (65,535 bytes, which only WINDOW_UPDATE
    /// raises): read this much and the server is given it back. A stream's own window is never
    /// given back: a push service's answers are a few hundred bytes, and the stream ends with it.
    private static let windowUpdateThreshold = 32 * 1024

    private let state: NIOLockedValueBox<ConnectionState>
    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var nextStreamID = 1
    private var unacknowledgedBytes = 0
    /// One timer for every stream's timeout, set for the earliest deadline: a timer per stream
    /// (scheduled, then cancelled at nearly every answer) cost more than the rest of its framing
    /// here. Streams end in about the order they start, so it fires about once per timeout.
    private var timer: (at: NIODeadline, task: Scheduled<Void>)?
    private var flushPending = false

    init(state: NIOLockedValueBox<ConnectionState>) {
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(.lost)
        self.context = nil
    }

    /// Writes `request` on a new stream and calls `completion` with its answer (see the type).
    func start(
        _ request: PushHTTPRequest, timeout: TimeAmount,
        completion: @escaping @Sendable (Result<PushHTTPResponse, Failure>) -> Void
    ) {
        start(request, body: ByteBuffer(bytes: request.body), timeout: timeout, completion: .call(completion))
    }

    /// `start(_:timeout:completion:)` with the request's body already in a buffer (`StreamStarts`
    /// puts the bodies of the requests it starts together in one).
    func start(_ request: PushHTTPRequest, body: ByteBuffer, timeout: TimeAmount, completion: Completion) {
        guard let context, context.channel.isActive, nextStreamID <= Int(HTTP2StreamID.maxID) else {
            // Client stream ids are odd and never reused: a connection that ran out of them retires.
            if nextStreamID > Int(HTTP2StreamID.maxID) { state.withLockedValue { $0.retired = true } }
            return completion(.failure(Failure(reason: .closed, written: false)))
        }
        let id = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        let deadline = context.eventLoop.now + timeout
        streams[id] = Stream(completion: completion, deadline: deadline)
        setTimer(by: deadline, context: context)

        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: request.headers)))), promise: nil)
        let body = HTTP2Frame.FramePayload.Data(data: .byteBuffer(body), endStream: true)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success: streams[id].map { $0.written = true }
            case .failure: fail(id, .closed)
            }
        }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(body))), promise: written)
        flushSoon(context)
    }

    /// One flush for the streams started in this event-loop turn: the HTTP/2 handler walks its
    /// buffered streams at every flush, and the pushes of a batch arrive as one task each.
    private func flushSoon(_ context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute { [self] in
            flushPending = false
            self.context?.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.streamID != .rootStream else { return context.fireChannelRead(data) }
        switch frame.payload {
        case .headers(let headers):
            // The first final HEADERS is the response; a later one is trailers, which push services do not send.
            if let stream = streams[frame.streamID], stream.response == nil,
                let status = headers.headers.first(name: ":status").flatMap({ Int($0) }), status >= 200
            {
                stream.response = PushHTTPResponse(status: status, headers: headers.headers, body: [])
            }
            if headers.endStream { complete(frame.streamID) }
        case .data(let body):
            unacknowledgedBytes += body.data.readableBytes + (body.paddingBytes ?? 0)
            if case .byteBuffer(let buffer) = body.data, buffer.readableBytes > 0,
                let stream = streams[frame.streamID]
            {
                stream.response?.body += buffer.readableBytesView
            }
            if body.endStream { complete(frame.streamID) }
        default:
            break  // A RST_STREAM arrives as a `StreamClosedEvent` too.
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unacknowledgedBytes >= Self.windowUpdateThreshold {
            let increment = unacknowledgedBytes
            unacknowledgedBytes = 0
            context.writeAndFlush(
                wrapOutboundOut(
                    HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))),
                promise: nil)
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            // Closed before its answer ended. NIO closes the streams a GOAWAY left out with
            // CANCEL (its documentation says REFUSED_STREAM, which a server may also send
            // itself): either way, not processed.
            let code = closed.reason
            fail(closed.streamID, code == .refusedStream || code == .cancel ? .closed : .lost)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream's own error ends that stream only; any other ends the connection (`ConnectionObserver`).
        guard let streamError = error as? NIOHTTP2Errors.StreamError else { return context.fireErrorCaught(error) }
        let code = (streamError.baseError as? NIOHTTP2Errors.StreamClosed)?.errorCode
        fail(streamError.streamID, code == .refusedStream || code == .cancel ? .closed : .lost)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(.lost)
        context.fireChannelInactive()
    }

    /// Makes sure the timer fires by `deadline`.
    private func setTimer(by deadline: NIODeadline, context: ChannelHandlerContext) {
        if let timer {
            guard deadline < timer.at else { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timeOutOverdueStreams()
        }
        timer = (deadline, task)
    }

    /// Fails the streams whose deadline has come and resets them, so a late answer is never
    /// mistaken for another request's; sets the timer for the next deadline.
    private func timeOutOverdueStreams() {
        guard let context else { return }
        let now = context.eventLoop.now
        var overdue: [HTTP2StreamID] = []
        var next: NIODeadline?
        for (id, stream) in streams {
            if stream.deadline <= now {
                overdue.append(id)
            } else if next.map({ stream.deadline < $0 }) ?? true {
                next = stream.deadline
            }
        }
        for id in overdue {
            guard let stream = streams.removeValue(forKey: id) else { continue }
            stream.completion(.failure(Failure(reason: .timedOut, written: stream.written)))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
        }
        if !overdue.isEmpty { context.flush() }
        if let next { setTimer(by: next, context: context) }
    }

    /// Stream `id` ended: its request gets the answer, or `.lost` when no final HEADERS came.
    private func complete(_ id: HTTP2StreamID) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        guard let response = stream.response else {
            return stream.completion(.failure(Failure(reason: .lost, written: stream.written)))
        }
        stream.completion(.success(response))
    }

    /// Stream `id` ended without its answer (a no-op when it was already completed).
    private func fail(_ id: HTTP2StreamID, _ reason: ConnectionFailure) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.completion(.failure(Failure(reason: reason, written: stream.written)))
    }

    private func failAll(_ failure: ConnectionFailure) {
        timer?.task.cancel()
        timer = nil
        let open = streams
        streams.removeAll()
        for stream in open.values {
            stream.completion(.failure(Failure(reason: failure, written: stream.written)))
        }
    }
}
