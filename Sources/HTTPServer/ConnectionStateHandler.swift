import NIOCore
import NIOHTTP1

/// Connection-level rules that need the clock or the channel, not the request's meaning:
/// the idle, header-read, body-read and write timeouts, closing after a response that says
/// `Connection: close`, and quiescing for graceful shutdown.
///
/// Sits after the HTTP codec, so it sees decoded request parts coming in, response parts going
/// out, and the `read()` calls that show whether the server currently wants more bytes. The
/// body timeout only runs while a read is outstanding: when the request's consumer is behind
/// and reading is paused, waiting is the server's doing, not the client's.
final class ConnectionStateHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = ResponsePart
    typealias OutboundOut = ResponsePart

    struct Timeouts: Sendable {
        var idle: TimeAmount
        var headerRead: TimeAmount
        var bodyRead: TimeAmount
        /// How long the outbound buffer may stay full (the channel unwritable) because the client
        /// does not read; then the connection is closed and what it buffered is freed.
        var write: TimeAmount = .seconds(30)
        /// The idle timeout once quiescing. Not zero: a keep-alive client may have sent its next
        /// request before it could see our close, and closing on it would reset that request
        /// unanswered. A request that arrives meanwhile is answered with `Connection: close`.
        var quiescedIdle: TimeAmount = .milliseconds(500)
    }

    enum TimeoutKind: String, Sendable {
        case idle
        case headerRead = "header_read"
        case bodyRead = "body_read"
        case write
    }

    private let timeouts: Timeouts
    /// Told when a timeout closes the connection (for logging), with the request id of the 408
    /// when one was sent.
    private let onTimeout: @Sendable (TimeoutKind, String?) -> Void

    /// Request heads received minus responses completed.
    private var inFlight = 0
    private var headInProgress = false
    private var readOutstanding = false
    private var quiescing = false
    private var closeAfterResponse = false
    private var closing = false
    /// The timeout in force, and when it expires.
    private var deadline: (kind: TimeoutKind, at: NIODeadline)?
    /// The one scheduled wake-up, never later than `deadline`. A deadline that moves later leaves
    /// it alone (on waking it sleeps again for the rest); only an earlier one replaces it. Replacing
    /// it for every request part (three times per request) cost a twentieth of a request's CPU.
    private var wakeUp: (at: NIODeadline, task: Scheduled<Void>)?
    /// A header/body timeout that fired while reading was paused; re-armed on the next read.
    private var deferredTimeout: TimeoutKind?
    /// Armed while the channel is unwritable. A timer of its own: it runs beside whichever read
    /// or idle timeout is in force, and arming it is rare (only when the client is behind).
    private var writeStall: Scheduled<Void>?

    init(timeouts: Timeouts, onTimeout: @escaping @Sendable (TimeoutKind, String?) -> Void = { _, _ in }) {
        self.timeouts = timeouts
        self.onTimeout = onTimeout
    }

    private var isIdle: Bool { inFlight == 0 && !headInProgress }

    func channelActive(context: ChannelHandlerContext) {
        arm(.idle, context: context)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(.idle, context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        stopTimers()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is RequestHeadStarted:
            headInProgress = true
            arm(.headerRead, context: context)
        case is ChannelShouldQuiesceEvent:
            quiescing = true
            if isIdle { arm(.idle, context: context) }  // now the short quiesced idle timeout
            // The connection's handler closes after its next answer, which it encodes whole.
            context.fireUserInboundEventTriggered(event)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head:
            headInProgress = false
            inFlight += 1
            arm(.bodyRead, context: context)
        case .body:
            arm(.bodyRead, context: context)
        case .end:
            if deadline?.kind == .bodyRead { cancelTimer() }
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeStall?.cancel()
            writeStall = nil
        } else if writeStall == nil && !closing {
            writeStall = context.eventLoop.assumeIsolated().scheduleTask(in: timeouts.write) {
                self.writeStall = nil
                self.onTimeout(.write, nil)
                self.close(context: context)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readOutstanding = false
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        readOutstanding = true
        if let kind = deferredTimeout {
            deferredTimeout = nil
            arm(kind, context: context)
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            guard quiescing else {
                // Passed on as it came: wrapping the head again boxed it again. Most heads have no
                // Connection header (keep-alive is HTTP/1.1's default), so none is split.
                closeAfterResponse =
                    head.headers.contains(name: "connection")
                    && head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
                context.write(data, promise: promise)
                return
            }
            head.headers.replaceOrAdd(name: "connection", value: "close")
            closeAfterResponse = true
            context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
        case .whole(_, let closes):
            // Its head was encoded by the connection's handler, which closes when quiescing too.
            closeAfterResponse = closes || quiescing
            responseEnded(data, context: context, promise: promise)
        case .end:
            responseEnded(data, context: context, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    /// Writes a response's last part (`data`), and closes after it when the response said so.
    private func responseEnded(_ data: NIOAny, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        // A rejection (414, 400…) answers bytes that never became a head: do not go below 0.
        inFlight = max(0, inFlight - 1)
        if closeAfterResponse || (quiescing && isIdle) {
            // Close once the last bytes are handed to the socket, not before.
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in self.close(context: context) }
            // A peer that never reads would hold the write forever; the idle timer ends that.
            arm(.idle, context: context)
        } else {
            context.write(data, promise: promise)
            if isIdle { arm(.idle, context: context) }
        }
    }

    private func arm(_ kind: TimeoutKind, context: ChannelHandlerContext) {
        // A response can still be written after the peer left; nothing is left to time out.
        guard !closing else { return }
        let amount: TimeAmount
        switch kind {
        case .idle: amount = quiescing ? min(timeouts.idle, timeouts.quiescedIdle) : timeouts.idle
        case .headerRead: amount = timeouts.headerRead
        case .bodyRead: amount = timeouts.bodyRead
        case .write: amount = timeouts.write
        }
        deadline = (kind, context.eventLoop.now + amount)
        scheduleWakeUp(context: context)
    }

    private func cancelTimer() {
        deadline = nil
    }

    /// For a connection that is done: the pending wake-up would hold it until it fires.
    private func stopTimers() {
        deadline = nil
        wakeUp?.task.cancel()
        wakeUp = nil
        writeStall?.cancel()
        writeStall = nil
    }

    private func scheduleWakeUp(context: ChannelHandlerContext) {
        guard let deadline else { return }
        if let wakeUp, wakeUp.at <= deadline.at { return }
        wakeUp?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline.at) {
            self.wokeUp(context: context)
        }
        wakeUp = (deadline.at, task)
    }

    private func wokeUp(context: ChannelHandlerContext) {
        wakeUp = nil
        guard let deadline else { return }
        guard context.eventLoop.now >= deadline.at else { return scheduleWakeUp(context: context) }
        self.deadline = nil
        timerFired(deadline.kind, context: context)
    }

    private func timerFired(_ kind: TimeoutKind, context: ChannelHandlerContext) {
        if kind != .idle && !readOutstanding {
            deferredTimeout = kind
            return
        }
        if kind == .headerRead && inFlight == 0 {
            // Nothing else is being answered, so the client can still be told why.
            let requestID = RequestID.generate()
            onTimeout(kind, requestID)
            let response = HTTPResponse.problem(
                Problem(status: .requestTimeout, detail: "The request headers were not received in time."))
            ResponseHead.writeStandalone(response, requestID: requestID, context: context) {
                self.close(context: context)
            }
            return
        }
        onTimeout(kind, nil)
        close(context: context)
    }

    private func close(context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        stopTimers()
        context.close(promise: nil)
    }
}
