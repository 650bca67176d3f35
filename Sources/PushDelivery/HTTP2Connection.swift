import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// One TLS connection speaking HTTP/2 to a push service, carrying many requests at once, one
/// stream each (`PushStreamHandler`).
final class HTTP2Connection: Sendable {
    let endpoint: PushEndpoint
    private let channel: any Channel
    private let starts: StreamStarts
    private let health: NIOLoopBound<ConnectionHealthHandler>
    private let state: NIOLockedValueBox<ConnectionState>

    private init(
        endpoint: PushEndpoint, channel: any Channel, streams: NIOLoopBound<PushStreamHandler>,
        health: NIOLoopBound<ConnectionHealthHandler>, state: NIOLockedValueBox<ConnectionState>
    ) {
        self.endpoint = endpoint
        self.channel = channel
        starts = StreamStarts(streams: streams)
        self.health = health
        self.state = state
    }

    /// Connects, completes the TLS handshake (certificate verified, ALPN `h2`) and the HTTP/2
    /// preface exchange (the server's SETTINGS received), all within `timeout`. Its health is
    /// watched by `ConnectionHealth` with `pingInterval` and `pingTimeout`.
    static func connect(
        to endpoint: PushEndpoint, tls: NIOSSLContext, group: any EventLoopGroup, timeout: Duration,
        pingInterval: Duration, pingTimeout: Duration
    ) async throws(ConnectionFailure) -> HTTP2Connection {
        let state = NIOLockedValueBox(ConnectionState())
        let serverName = endpoint.host.isIPAddress ? nil : endpoint.host
        let channel: any Channel
        let streams: NIOLoopBound<PushStreamHandler>
        let ready: EventLoopFuture<Void>
        let health: NIOLoopBound<ConnectionHealthHandler>
        do {
            (channel, streams, ready, health) = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let ready = channel.eventLoop.makePromise(of: Void.self)
                        let operations = channel.pipeline.syncOperations
                        let health = ConnectionHealthHandler(
                            health: ConnectionHealth(
                                idleInterval: TimeAmount(pingInterval), answerTimeout: TimeAmount(pingTimeout),
                                now: channel.eventLoop.now),
                            state: state)
                        try operations.addHandler(health)
                        try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        try operations.addHandler(TLSHandshakeObserver(ready: ready))
                        try operations.addHandler(FlushCoalescer())
                        // The header blocks sent are built here from known names and checked
                        // values (`APNsSender`), and only `:status` and a few named headers are
                        // read from the answers: NIO's checks of both (legal names and values,
                        // pseudo-header order, content-length) cost more than the rest of a
                        // request's HEADERS and bought nothing.
                        try operations.addHandler(
                            NIOHTTP2Handler(
                                mode: .client, headerBlockValidation: .disabled, contentLengthValidation: .disabled))
                        let streams = PushStreamHandler(state: state)
                        try operations.addHandler(streams)
                        try operations.addHandler(ConnectionObserver(state: state, ready: ready))
                        channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                            ready.fail(ConnectionFailure.connect("TLS or HTTP/2 setup timed out"))
                        }
                        return (
                            channel, NIOLoopBound(streams, eventLoop: channel.eventLoop), ready.futureResult,
                            NIOLoopBound(health, eventLoop: channel.eventLoop)
                        )
                    }
                }
        } catch {
            throw .connect("\(error)")
        }
        do {
            try await ready.get()
        } catch {
            channel.close(promise: nil)
            throw (error as? ConnectionFailure) ?? .connect("\(error)")
        }
        return HTTP2Connection(endpoint: endpoint, channel: channel, streams: streams, health: health, state: state)
    }

    /// Takes one of the connection's streams if it has one free (or, `evenIfFull`, if it is not
    /// retired); `send` gives it back.
    func reserveStream(evenIfFull: Bool = false) -> Bool {
        state.withLockedValue { state in
            guard state.canTakeStream || (evenIfFull && !state.retired) else { return false }
            state.openStreams += 1
            return true
        }
    }

    /// Gives back a stream reserved but not used.
    func releaseStream() {
        let drained: [EventLoopPromise<Void>] = state.withLockedValue { state in
            state.openStreams -= 1
            guard state.openStreams == 0 else { return [] }
            defer { state.drained.removeAll() }
            return state.drained
        }
        for promise in drained { promise.succeed() }
    }

    /// Returns when no stream is open any more, or at `deadline`.
    func drained(before deadline: ContinuousClock.Instant) async {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let idle = state.withLockedValue { state in
            if state.openStreams > 0 { state.drained.append(promise) }
            return state.openStreams == 0
        }
        guard !idle else { return promise.succeed() }  // A promise left incomplete is a leak to NIO.
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(ContinuousClock.now.duration(to: deadline))) {
            promise.succeed()
        }
        try? await promise.futureResult.get()
        timer.cancel()
    }

    var isRetired: Bool { state.withLockedValue { $0.retired } }

    var openStreams: Int { state.withLockedValue { $0.openStreams } }

    /// Sends `request` on a stream reserved with `reserveStream()` and returns the answer, or
    /// throws why there is none (see `ConnectionFailure`). When `timeout` passes, the stream is
    /// reset (so a late answer is never mistaken for a later request's) and, if the request was
    /// fully written, the connection is PINGed at once: `.lost` if it proves dead, so the request
    /// may go again elsewhere, `.unanswered` if it is alive. The verdict is awaited only while
    /// `pushDeadline` leaves room for another attempt; after it, the answer is `.unanswered`.
    func send(_ request: PushHTTPRequest, timeout: Duration, pushDeadline: ContinuousClock.Instant)
        async throws(ConnectionFailure) -> PushHTTPResponse
    {
        defer { releaseStream() }
        let answer = await withUnsafeContinuation { continuation in
            starts.start(request, timeout: TimeAmount(timeout), completion: .resume(continuation))
        }
        let failure: ConnectionFailure
        switch answer {
        case .success(let response):
            return response
        case .failure(let stream):
            guard stream.written else { throw stream.reason == .timedOut ? .timedOut : .closed }
            failure = stream.reason
        }
        switch failure {
        case .timedOut:
            let alive = probe()
            guard ContinuousClock.now < pushDeadline else { throw .unanswered }
            throw (try? await alive.get()) == false ? .lost : .unanswered
        case .lost where channel.isActive && !isRetired:
            // The server reset this one stream on a live connection: it may have acted on it.
            throw .unanswered
        default:
            // Marked here too: the stream can learn of the close before the connection's handlers do.
            if !channel.isActive { state.withLockedValue { $0.retired = true } }
            throw failure
        }
    }

    /// PINGs the connection now; the future says whether it answers within the health rule's
    /// answer timeout.
    private func probe() -> EventLoopFuture<Bool> {
        let promise = channel.eventLoop.makePromise(of: Bool.self)
        let health = self.health
        channel.eventLoop.execute { health.value.probe(promise) }
        return promise.futureResult
    }

    func close() {
        state.withLockedValue { $0.retired = true }
        channel.close(promise: nil)
    }
}

extension String {
    /// An IPv4 or IPv6 literal, which TLS may not carry as the server name (SNI).
    fileprivate var isIPAddress: Bool {
        contains(":") || (split(separator: ".").count == 4 && allSatisfy { $0.isNumber || $0 == "." })
    }
}
