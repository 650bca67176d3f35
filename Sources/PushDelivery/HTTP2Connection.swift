import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// One TLS connection speaking HTTP/2 to a push service, carrying many requests at once, one
/// stream each.
final class HTTP2Connection: Sendable {
    let endpoint: PushEndpoint
    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let state: NIOLockedValueBox<ConnectionState>

    private init(
        endpoint: PushEndpoint, channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        state: NIOLockedValueBox<ConnectionState>
    ) {
        self.endpoint = endpoint
        self.channel = channel
        self.multiplexer = multiplexer
        self.state = state
    }

    /// Connects, completes the TLS handshake (certificate verified, ALPN `h2`) and the HTTP/2
    /// preface exchange (the server's SETTINGS received), all within `timeout`.
    static func connect(
        to endpoint: PushEndpoint, tls: NIOSSLContext, group: any EventLoopGroup, timeout: Duration,
        pingInterval: Duration
    ) async throws(ConnectionFailure) -> HTTP2Connection {
        let state = NIOLockedValueBox(ConnectionState())
        let serverName = endpoint.host.isIPAddress ? nil : endpoint.host
        let channel: any Channel
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer
        let ready: EventLoopFuture<Void>
        do {
            (channel, multiplexer, ready) = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(timeout / .nanoseconds(1))))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let ready = channel.eventLoop.makePromise(of: Void.self)
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(
                            IdleStateHandler(allTimeout: .nanoseconds(Int64(pingInterval / .nanoseconds(1)))))
                        try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        try operations.addHandler(TLSHandshakeObserver(ready: ready))
                        try operations.addHandler(FlushCoalescer())
                        let multiplexer = try operations.configureHTTP2Pipeline(
                            mode: .client, connectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration(),
                            streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                        ) { $0.eventLoop.makeSucceededVoidFuture() }
                        try operations.addHandler(ConnectionObserver(state: state, ready: ready))
                        channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout / .nanoseconds(1)))) {
                            ready.fail(ConnectionFailure.connect("TLS or HTTP/2 setup timed out"))
                        }
                        return (channel, multiplexer, ready.futureResult)
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
        return HTTP2Connection(endpoint: endpoint, channel: channel, multiplexer: multiplexer, state: state)
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
        state.withLockedValue { $0.openStreams -= 1 }
    }

    var isRetired: Bool { state.withLockedValue { $0.retired } }

    var openStreams: Int { state.withLockedValue { $0.openStreams } }

    /// Sends `request` on a stream reserved with `reserveStream()` and returns the answer, or
    /// throws why there is none: the connection went away, or `timeout` passed (the stream is
    /// then reset, so a late answer is never mistaken for a later request's).
    func send(_ request: PushHTTPRequest, timeout: Duration) async throws(ConnectionFailure) -> PushHTTPResponse {
        defer { releaseStream() }
        let eventLoop = channel.eventLoop
        let promise = eventLoop.makePromise(of: PushHTTPResponse.self)
        let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout / .nanoseconds(1)))) {
            promise.fail(ConnectionFailure.timedOut)
        }
        let authority = endpoint.authority
        multiplexer.createStreamChannel { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
            }
        }.whenComplete { result in
            switch result {
            case .failure:
                promise.fail(ConnectionFailure.closed)
            case .success(let stream):
                promise.futureResult.whenFailure { _ in stream.close(promise: nil) }
                // Frames written directly: no HTTP/1 view of the stream to build and translate back.
                var headers = HPACKHeaders([
                    (":method", "POST"), (":scheme", "https"), (":path", request.path), (":authority", authority),
                ])
                for (name, value) in request.headers { headers.add(name: name, value: value) }
                headers.add(name: "content-length", value: String(request.body.count))
                stream.write(HTTP2Frame.FramePayload.headers(.init(headers: headers)), promise: nil)
                let body = HTTP2Frame.FramePayload.Data(
                    data: .byteBuffer(ByteBuffer(bytes: request.body)), endStream: true)
                stream.writeAndFlush(HTTP2Frame.FramePayload.data(body)).whenFailure { _ in
                    promise.fail(ConnectionFailure.closed)
                }
            }
        }
        do {
            let response = try await promise.futureResult.get()
            deadline.cancel()
            return response
        } catch {
            deadline.cancel()
            throw (error as? ConnectionFailure) ?? .closed
        }
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
