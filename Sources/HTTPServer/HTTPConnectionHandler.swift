import NIOCore
import NIOHTTP1

/// Answers the requests of one connection, strictly in order, from the connection's event loop.
///
/// A request's head is routed and checked here; its route's handler runs in a task on this same
/// loop (see ``EventLoopTaskExecutor``), and the response is written with the channel's own
/// writes when the handler returns. Only then is the next request taken, which keeps pipelined
/// responses in request order: parts that arrive meanwhile wait in `waiting`, and the socket is
/// not read while parts wait there or while the client is not reading our responses, so TCP holds
/// a pipelining client back. A `.streamed` route's body goes to its ``RequestBodySource`` as it
/// arrives, and reading pauses while a few pieces wait unread.
///
/// This replaced a task per connection reading and writing through `NIOAsyncChannel`: every
/// request part and response part crossed that bridge's async sequences (locks, continuations,
/// generic state machines), about a fifth of the service's CPU per registration.
final class HTTPConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ResponsePart
    typealias OutboundOut = ResponsePart

    private enum Inbound {
        case part(HTTPServerRequestPart)
        case failure(any Error)
    }

    private struct Collecting {
        let exchange: RequestExchange
        var request: HTTPRequest
        let route: Route
        let limit: Int?
    }

    private enum Phase {
        /// Between requests.
        case awaitingHead
        /// Reading a body whole; the handler runs at its end.
        case collecting(Collecting)
        /// The request was answered without a handler; its body is read and dropped.
        case discardingBody
        /// The handler runs and takes the body as it arrives.
        case streamingBody(RequestBodySource)
        /// The handler runs, or its response is being written; nothing more is read.
        case answering
        /// No more requests: the connection closes after the response being written, or has closed.
        case done
    }

    private let server: ServerContext
    private let finished: EventLoopPromise<Void>
    private var context: ChannelHandlerContext!
    private var executor: EventLoopTaskExecutor!
    private var remoteAddress: String?
    private var phase = Phase.awaitingHead
    /// Parts and errors that arrived while a request was being answered, in order.
    private var waiting = CircularBuffer<Inbound>(initialCapacity: 4)
    private var served = 0
    private var readWithheld = false
    private var bodyReadingPaused = false
    private var awaitingWritability = false
    /// A streamed answer's producer, waiting for the channel to turn writable again.
    private var writableAgain: EventLoopPromise<Void>?
    private var takingWaiting = false
    private var isActive = true
    private var hasEnded = false
    /// The server is shutting down: the next answer says `Connection: close` and is the last.
    private var quiescing = false
    /// The request's handler, from its start until its response is handed back.
    private var running: Running?

    private enum Running {
        case task(Task<Void, Never>)
        /// An ``ImmediateHandler``: nothing to cancel; its ``Responder`` is called whatever happens.
        case immediate
    }

    init(server: ServerContext, finished: EventLoopPromise<Void>) {
        self.server = server
        self.finished = finished
    }

    /// What the server keeps of the connection: when it has ended (closed, and no handler of it
    /// still running), and how to end it at once (close it, cancel its handler).
    var accepted: AcceptedConnection {
        let bound = NIOLoopBound(self, eventLoop: finished.futureResult.eventLoop)
        return AcceptedConnection(ended: finished.futureResult) {
            bound.eventLoop.execute { bound.value.cancel() }
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        executor = EventLoopTaskExecutor(eventLoop: context.eventLoop)
        remoteAddress = context.channel.remoteAddress?.ipAddress
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived(.part(Self.unwrapInboundIn(data)))
    }

    /// Framing rejections and parse errors, in order with the parts before them.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        arrived(.failure(error))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { quiescing = true }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        waiting.removeAll()
        if case .streamingBody(let source) = phase { source.fail(RequestBodyError.incomplete) }
        writableAgain?.fail(ChannelError.ioOnClosedChannel)
        writableAgain = nil
        if !isAnswering { phase = .done }
        endIfFinished()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let writableAgain {
            self.writableAgain = nil
            writableAgain.succeed()
        }
        if awaitingWritability && context.channel.isWritable {
            awaitingWritability = false
            takeWaiting()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if wantsRead {
            context.read()
        } else {
            readWithheld = true
        }
    }

    private var isAnswering: Bool {
        if case .answering = phase { true } else { false }
    }

    private var canTake: Bool { !awaitingWritability && !isAnswering }

    /// While a request is answered the socket stays readable until the next request's first part
    /// arrives (then it waits in `waiting`, and reading stops): withholding the read at once made
    /// NIO drop and re-add the socket's read interest, two `epoll_ctl` calls per request, for a
    /// client that sends nothing before its answer anyway.
    private var wantsRead: Bool {
        guard waiting.isEmpty, !awaitingWritability else { return false }
        switch phase {
        case .awaitingHead, .collecting, .discardingBody, .answering: return true
        case .streamingBody: return !bodyReadingPaused
        case .done: return false
        }
    }

    private func arrived(_ inbound: Inbound) {
        if canTake && waiting.isEmpty {
            take(inbound)
        } else {
            waiting.append(inbound)
        }
    }

    private func takeWaiting() {
        // An answer given while taking comes back here: one loop, however many are pipelined.
        guard !takingWaiting else { return }
        takingWaiting = true
        while canTake, let next = waiting.popFirst() {
            take(next)
        }
        takingWaiting = false
        if readWithheld && wantsRead {
            readWithheld = false
            context.read()
        }
    }

    private func take(_ inbound: Inbound) {
        switch (phase, inbound) {
        case (.done, _), (.answering, _):
            return
        case (.awaitingHead, .part(.head(let head))):
            begin(head)
        case (.awaitingHead, .part):
            abort()
        case (.awaitingHead, .failure(let error)):
            rejectUnreadable(error)
        case (.collecting(var collecting), .part(.body(var chunk))):
            phase = .answering  // while `collecting` is changed, so its body is not copied
            if let limit = collecting.limit, collecting.request.body.readableBytes + chunk.readableBytes > limit {
                return refuse(.tooLarge(limit), exchange: collecting.exchange, route: collecting.route.template)
            }
            if collecting.request.body.readableBytes == 0 {
                // The usual body comes in one piece: keep it rather than copy it into a new buffer.
                collecting.request.body = chunk
            } else {
                collecting.request.body.writeBuffer(&chunk)
            }
            phase = .collecting(collecting)
        case (.collecting(let collecting), .part(.end)):
            run(collecting.request, route: collecting.route, exchange: collecting.exchange, source: nil)
        case (.collecting, .part(.head)):
            abort()
        case (.collecting(let collecting), .failure(let error)):
            guard let rejection = RequestRejection.answering(bodyFailure: error) else { return abort() }
            refuse(rejection, exchange: collecting.exchange, route: collecting.route.template)
        case (.discardingBody, .part(.body)):
            return
        case (.discardingBody, .part(.end)):
            phase = .awaitingHead
        case (.discardingBody, _):
            abort()
        case (.streamingBody(let source), .part(.body(let chunk))):
            if !source.deliver(chunk) { bodyReadingPaused = true }
        case (.streamingBody(let source), .part(.end)):
            phase = .answering
            source.finish()
        case (.streamingBody(let source), .part(.head)):
            phase = .answering
            source.fail(RequestBodyError.incomplete)
        case (.streamingBody(let source), .failure(let error)):
            phase = .answering
            source.fail(error)
        }
    }

    private func begin(_ head: HTTPRequestHead) {
        served += 1
        let exchange = RequestExchange(
            head: head, isLastOnConnection: served >= server.configuration.maxRequestsPerConnection)
        switch exchange.plan(server, remoteAddress: remoteAddress) {
        case .answerEarly(let response, let route):
            let close = exchange.closesAfterEarlyAnswer(response, maxBodyBytes: server.configuration.maxBodyBytes)
            answer(response, exchange: exchange, route: route, close: close, then: .discardingBody)
        case .refuse(let rejection, let route):
            refuse(rejection, exchange: exchange, route: route)
        case .collect(let request, let route, let limit):
            if exchange.wantsContinue { writeContinue(exchange) }
            phase = .collecting(Collecting(exchange: exchange, request: request, route: route, limit: limit))
        case .stream(var request, let route, let limit):
            if exchange.wantsContinue { writeContinue(exchange) }
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let source = RequestBodySource(limit: limit) {
                bound.eventLoop.execute { bound.value.bodyReadingResumed() }
            }
            request.bodyStream = RequestBodyStream(source: source)
            run(request, route: route, exchange: exchange, source: source)
        }
    }

    private func writeContinue(_ exchange: RequestExchange) {
        let head = HTTPResponseHead(version: exchange.head.version, status: .continue)
        context.writeAndFlush(Self.wrapOutboundOut(.head(head)), promise: nil)
    }

    private func bodyReadingResumed() {
        bodyReadingPaused = false
        if readWithheld && wantsRead {
            readWithheld = false
            context.read()
        }
    }

    // MARK: The handler

    /// Runs the route's handler: an async one in a task on this loop, an immediate one here. The
    /// response is written when it returns.
    private func run(_ request: HTTPRequest, route: Route, exchange: RequestExchange, source: RequestBodySource?) {
        if let source {
            phase = .streamingBody(source)
            bodyReadingPaused = false
        } else {
            phase = .answering
        }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        switch route.handler {
        case .task(let handler):
            running = .task(
                Self.start(
                    handler, request, route: route, exchange: exchange, source: source, bound: bound, on: executor))
        case .immediate(let handler):
            // Set first: the handler may answer before it returns.
            running = .immediate
            handler(request, Responder(connection: bound, exchange: exchange, route: route, source: source))
        }
    }

    private static func start(
        _ handler: @escaping Handler, _ request: HTTPRequest, route: Route, exchange: RequestExchange,
        source: RequestBodySource?, bound: NIOLoopBound<HTTPConnectionHandler>, on executor: EventLoopTaskExecutor
    ) -> Task<Void, Never> {
        Task(executorPreference: executor) {
            await handle(handler, request, route: route, exchange: exchange, source: source, bound: bound)
        }
    }

    /// The handler task's body: runs the handler and hands its response back to the loop.
    private static func handle(
        _ handler: Handler, _ request: HTTPRequest, route: Route, exchange: RequestExchange,
        source: RequestBodySource?, bound: NIOLoopBound<HTTPConnectionHandler>
    ) async {
        let response = await handler(request)
        if case .stream(let stream) = response.body {
            await streamAnswer(response, stream, bound: bound, exchange: exchange, route: route, source: source)
            return
        }
        // The task runs on the loop, unless the handler ended on an executor of its own.
        let loop = bound.eventLoop
        if loop.inEventLoop {
            bound.value.handlerReturned(response, exchange: exchange, route: route.template, source: source)
        } else {
            loop.execute {
                bound.value.handlerReturned(response, exchange: exchange, route: route.template, source: source)
            }
        }
    }

    /// An immediate handler's response, on this loop. A streamed one is written by a task, as an
    /// async handler's is.
    func immediateReturned(_ response: HTTPResponse, to responder: Responder) {
        let (exchange, route, source) = (responder.exchange, responder.route, responder.source)
        guard case .stream(let stream) = response.body else {
            return handlerReturned(response, exchange: exchange, route: route.template, source: source)
        }
        running = .task(
            Self.startStreaming(
                response, stream, bound: responder.connection, exchange: exchange, route: route, source: source,
                on: executor))
    }

    private static func startStreaming(
        _ response: HTTPResponse, _ stream: AsyncStream<ByteBuffer>, bound: NIOLoopBound<HTTPConnectionHandler>,
        exchange: RequestExchange, route: Route, source: RequestBodySource?, on executor: EventLoopTaskExecutor
    ) -> Task<Void, Never> {
        Task(executorPreference: executor) {
            await streamAnswer(response, stream, bound: bound, exchange: exchange, route: route, source: source)
        }
    }

    /// Whether the connection stays open after answering `response`; nil when it was answered
    /// otherwise (a body that failed is refused, a broken one closes the connection).
    private func keepsAlive(
        after response: HTTPResponse, exchange: RequestExchange, route: String, source: RequestBodySource?
    ) -> Bool? {
        var close = !exchange.keepAlive || quiescing
        switch source?.detach() {
        case nil, .complete:
            break
        case .unfinished:
            close = true  // the rest of the body is still coming, and not worth reading
        case .failed(let error):
            running = nil
            guard let rejection = RequestRejection.answering(bodyFailure: error) else {
                abort()
                endIfFinished()
                return nil
            }
            refuse(rejection, exchange: exchange, route: route)
            endIfFinished()
            return nil
        }
        return !exchange.closes(answering: response, close: close)
    }

    private func handlerReturned(
        _ response: HTTPResponse, exchange: RequestExchange, route: String, source: RequestBodySource?
    ) {
        guard let keepAlive = keepsAlive(after: response, exchange: exchange, route: route, source: source) else {
            return
        }
        running = nil
        answer(response, exchange: exchange, route: route, close: !keepAlive)
        endIfFinished()
    }

    /// Writes a streamed response: the head, then each piece while the channel is writable (a
    /// slow reader slows the producer instead of growing a buffer past its high-water mark), then
    /// the end. Waiting for writability, not for each write to finish, lets the buffer fill when
    /// the client stops reading: the unwritable channel is what the write timeout watches.
    private static func streamAnswer(
        _ response: HTTPResponse, _ stream: AsyncStream<ByteBuffer>, bound: NIOLoopBound<HTTPConnectionHandler>,
        exchange: RequestExchange, route: Route, source: RequestBodySource?
    ) async {
        let loop = bound.eventLoop
        let started = loop.submit {
            try bound.value.startStreamedAnswer(response, exchange: exchange, route: route, source: source)
        }
        guard let sendsBody = try? await started.get() else { return }
        if sendsBody {
            for await piece in stream where piece.readableBytes > 0 {
                let written = loop.flatSubmit { bound.value.writeStreamed(piece) }
                guard (try? await written.get()) != nil else { break }
            }
        }
        loop.execute { bound.value.endStreamedAnswer(response, exchange: exchange, route: route.template) }
    }

    /// Writes the head of a streamed response: whether its body is to be sent, or nil when the
    /// request was answered otherwise.
    private func startStreamedAnswer(
        _ response: HTTPResponse, exchange: RequestExchange, route: Route, source: RequestBodySource?
    ) throws -> Bool {
        guard let keepAlive = keepsAlive(after: response, exchange: exchange, route: route.template, source: source)
        else { throw ChannelError.ioOnClosedChannel }
        streamedAnswerCloses = !keepAlive
        let head = ResponseHead.make(
            response, version: exchange.head.version, isHeadRequest: exchange.isHeadRequest,
            requestID: exchange.requestID, close: !keepAlive)
        context.writeAndFlush(Self.wrapOutboundOut(.head(head)), promise: nil)
        return !exchange.isHeadRequest && ResponseHead.statusAllowsBody(response.status)
    }

    private var streamedAnswerCloses = false

    private func writeStreamed(_ piece: ByteBuffer) -> EventLoopFuture<Void> {
        guard isActive else { return context.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(piece))), promise: nil)
        // A write that fails closes the channel from inside writeAndFlush: channelInactive has
        // then run, and a promise made now would never be completed (the producer hung).
        guard isActive else { return context.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        if context.channel.isWritable { return context.eventLoop.makeSucceededVoidFuture() }
        let promise = context.eventLoop.makePromise(of: Void.self)
        writableAgain = promise
        return promise.futureResult
    }

    private func endStreamedAnswer(_ response: HTTPResponse, exchange: RequestExchange, route: String) {
        running = nil
        let close = streamedAnswerCloses
        phase = close ? .done : .awaitingHead
        if isActive { context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil) }
        logged(response, exchange: exchange, route: route)
        answered(close: close)
        endIfFinished()
    }

    // MARK: Answers

    /// Writes a whole `.bytes` response to the request of `exchange`, logs it, and goes on with
    /// `next` (the next request, or the rest of this one's body) unless `close`.
    private func answer(
        _ response: HTTPResponse, exchange: RequestExchange, route: String, close: Bool,
        then next: Phase = .awaitingHead
    ) {
        let close = close || quiescing
        // Before writing: a close after the last byte may call back into channelInactive.
        phase = close ? .done : next
        let sendsBody = !exchange.isHeadRequest && ResponseHead.statusAllowsBody(response.status)
        write(
            response, version: exchange.head.version, isHeadRequest: exchange.isHeadRequest,
            requestID: exchange.requestID, close: close, sendsBody: sendsBody)
        logged(response, exchange: exchange, route: route)
        answered(close: close)
    }

    private func answered(close: Bool) {
        guard isActive, !close else { return }
        // A client that does not read its answers gets no more of them until it does.
        if !context.channel.isWritable { awaitingWritability = true }
        takeWaiting()
    }

    /// Answers a request whose body broke a rule, then closes: the rest of the body is unread.
    private func refuse(_ rejection: RequestRejection, exchange: RequestExchange, route: String) {
        let response = HTTPResponse.problem(Problem(status: rejection.status, detail: rejection.detail))
        answer(response, exchange: exchange, route: route, close: true)
    }

    /// Bytes that are not a request (framing limits, parse errors): answered once, after
    /// everything before them was answered, and the connection closes. Anything else (reset,
    /// closed channel) means there is nobody to answer.
    private func rejectUnreadable(_ error: any Error) {
        guard error is RequestRejection || error is HTTPParserError else { return abort() }
        phase = .done
        let rejection = RequestRejection.from(error)
        let requestID = RequestID.generate()
        let start = ContinuousClock.now
        let response = HTTPResponse.problem(Problem(status: rejection.status, detail: rejection.detail))
        write(response, version: .http1_1, isHeadRequest: false, requestID: requestID, close: true, sendsBody: true)
        server.accessLog.record(
            method: nil, route: AccessLog.unmatched, response: response, requestID: requestID, since: start)
    }

    /// Closes now: the client is gone or the byte stream cannot be followed any more.
    private func abort() {
        phase = .done
        waiting.removeAll()
        context.close(promise: nil)
    }

    /// Writes a whole `.bytes` response, head and body encoded in one buffer.
    private func write(
        _ response: HTTPResponse, version: HTTPVersion, isHeadRequest: Bool, requestID: String, close: Bool,
        sendsBody: Bool
    ) {
        guard isActive else { return }
        let whole = ResponseHead.encode(
            response, version: version, isHeadRequest: isHeadRequest, requestID: requestID, close: close,
            sendsBody: sendsBody, allocator: context.channel.allocator)
        // ConnectionStateHandler closes after this when `close`.
        context.writeAndFlush(Self.wrapOutboundOut(.whole(whole, closes: close)), promise: nil)
    }

    /// Logged even when the client is gone mid-write: the handler did run.
    private func logged(_ response: HTTPResponse, exchange: RequestExchange, route: String) {
        server.accessLog.record(
            method: exchange.head.method, route: route, response: response, requestID: exchange.requestID,
            since: exchange.start)
    }

    // MARK: The connection's end

    private func endIfFinished() {
        guard !isActive, running == nil, !hasEnded else { return }
        hasEnded = true
        finished.succeed()
    }

    /// Closes the connection and cancels its handler (the shutdown grace period is over). An
    /// immediate handler cannot be cancelled: the connection ends without waiting for its answer,
    /// which then finds the connection closed.
    private func cancel() {
        switch running {
        case .task(let task): task.cancel()
        case .immediate: running = nil
        case nil: break
        }
        context.close(promise: nil)
        endIfFinished()
    }
}

/// An accepted connection as the server sees it: see ``HTTPConnectionHandler/accepted``.
struct AcceptedConnection: Sendable {
    let ended: EventLoopFuture<Void>
    let cancel: @Sendable () -> Void

    /// Returns once the connection has closed and no handler of it runs; cancelling the task
    /// closes the connection and cancels its handler.
    func waitUntilEnded() async {
        await withTaskCancellationHandler {
            _ = try? await ended.get()
        } onCancel: {
            cancel()
        }
    }
}
