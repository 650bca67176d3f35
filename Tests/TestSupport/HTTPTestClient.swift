import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One HTTP response as read off the wire by ``HTTPTestClient``.
public struct TestResponse: Sendable {
    public var status: Int
    public var reason: String
    /// In wire order, names as sent.
    public var headers: [(name: String, value: String)]
    public var bodyBytes: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of header `name` (case-insensitive).
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var body: String { String(decoding: bodyBytes, as: UTF8.self) }

    /// The body parsed with JSONSerialization (dictionaries, arrays, strings, numbers), or nil.
    public var json: Any? {
        try? JSONSerialization.jsonObject(with: Data(bodyBytes), options: [.fragmentsAllowed])
    }
}

public enum HTTPTestClientError: Error, Equatable {
    case timedOut
    /// The server closed the connection before a whole response arrived.
    case closedByPeer
    case malformedResponse(String)
}

/// A raw HTTP/1.1 client over loopback for tests: send arbitrary bytes, read responses
/// (Content-Length, chunked or close-delimited), reuse a connection, pipeline, see the peer close.
///
/// ```swift
/// let client = try await HTTPTestClient.connect(port: port)
/// let created = try await client.request("POST", "/v1/users/u1/devices", json: ["token": "abc"])
/// #expect(created.status == 201)
/// let listed = try await client.request("GET", "/v1/users/u1/devices", headers: [("Authorization", "Bearer …")])
/// #expect((listed.json as? [String: Any])?["devices"] != nil)
/// // Raw bytes and pipelining:
/// try await client.send(HTTPTestClient.requestBytes("GET", "/a") + HTTPTestClient.requestBytes("GET", "/b"))
/// let (a, b) = (try await client.readResponse(), try await client.readResponse())
/// ```
///
/// One request at a time per client (it is not a connection pool). Not for production: it
/// buffers everything and polls.
public final class HTTPTestClient: Sendable {
    private let channel: any Channel
    private let inbox: Inbox
    /// How long reads wait before throwing ``HTTPTestClientError/timedOut``.
    public let timeout: Duration

    private init(channel: any Channel, inbox: Inbox, timeout: Duration) {
        self.channel = channel
        self.inbox = inbox
        self.timeout = timeout
    }

    deinit {
        // Tests that forget close() must not leak sockets over hundreds of cases.
        channel.close(promise: nil)
    }

    /// - Parameter reads: false leaves incoming bytes in the socket (a client that never reads,
    ///   to test the server's backpressure) until ``startReading()``.
    public static func connect(
        host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(5), reads: Bool = true
    ) async throws -> HTTPTestClient {
        let inbox = Inbox()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.autoRead, value: reads)
        if !reads {
            // A small receive buffer keeps what the kernel absorbs for a non-reading client small.
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: 16 * 1024)
        }
        let channel =
            try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboxHandler(inbox: inbox))
                }
            }
            .connect(host: host, port: port).get()
        return HTTPTestClient(channel: channel, inbox: inbox, timeout: timeout)
    }

    public static func connect(to address: SocketAddress, timeout: Duration = .seconds(5)) async throws
        -> HTTPTestClient
    {
        try await connect(host: address.ipAddress ?? "127.0.0.1", port: address.port ?? 0, timeout: timeout)
    }

    /// Starts reading after `connect(reads: false)`.
    public func startReading() async throws {
        try await channel.setOption(.autoRead, value: true).get()
        channel.read()
    }

    // MARK: Sending

    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// A request's bytes: request line, `Host`, the given headers, `Content-Length` when there
    /// is a body and none was given, then the body.
    public static func requestBytes(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        version: String = "HTTP/1.1"
    ) -> [UInt8] {
        var head = "\(method) \(path) \(version)\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: localhost\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let hasFraming = headers.contains {
            ["content-length", "transfer-encoding"].contains($0.0.lowercased())
        }
        if let body, !hasFraming { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    // MARK: Requests

    /// Sends one request and reads its final response (skipping any 100 Continue).
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil)
        async throws -> TestResponse
    {
        try await send(Self.requestBytes(method, path, headers: headers, body: body.map { Array($0.utf8) }))
        return try await readFinalResponse(toHEAD: method == "HEAD")
    }

    /// Sends one request with a binary body and reads its final response.
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8])
        async throws -> TestResponse
    {
        try await send(Self.requestBytes(method, path, headers: headers, body: body))
        return try await readFinalResponse(toHEAD: method == "HEAD")
    }

    private func readFinalResponse(toHEAD: Bool) async throws -> TestResponse {
        while true {
            let response = try await readResponse(toHEAD: toHEAD)
            if response.status >= 200 || response.status == 101 { return response }
        }
    }

    /// A JSON request: encodes `json` with JSONSerialization and sets `Content-Type`.
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], json: Any) async throws
        -> TestResponse
    {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])
        return try await request(
            method, path, headers: [("Content-Type", "application/json")] + headers, body: Array(data))
    }

    // MARK: Reading

    /// Reads the next response, interim (1xx) ones included. `toHEAD` says the request was a
    /// HEAD, whose response has no body whatever its headers say.
    public func readResponse(toHEAD: Bool = false) async throws -> TestResponse {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (bytes, closed) = inbox.snapshot()
            switch try ResponseParser.parse(bytes, toHEAD: toHEAD, peerClosed: closed) {
            case .complete(let response, let consumed):
                inbox.consume(consumed)
                return response
            case .incomplete:
                if closed { throw HTTPTestClientError.closedByPeer }
            }
            guard ContinuousClock.now < deadline else { throw HTTPTestClientError.timedOut }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether the server closes the connection within `within` (default: the client timeout).
    public func waitForClose(within: Duration? = nil) async throws -> Bool {
        let deadline = ContinuousClock.now + (within ?? timeout)
        while ContinuousClock.now < deadline {
            if inbox.snapshot().closed { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return inbox.snapshot().closed
    }

    /// Bytes received but not consumed by a read (e.g. to check nothing else was sent).
    public var unreadBytes: [UInt8] { inbox.snapshot().bytes }

    public var isClosedByPeer: Bool { inbox.snapshot().closed }

    public func close() async {
        try? await channel.close().get()
    }
}

/// Bytes received so far and whether the peer closed; filled on the event loop, read by tests.
private final class Inbox: Sendable {
    private let state = NIOLockedValueBox((bytes: [UInt8](), closed: false))

    func append(_ buffer: ByteBuffer) {
        state.withLockedValue { $0.bytes += buffer.readableBytesView }
    }

    func markClosed() {
        state.withLockedValue { $0.closed = true }
    }

    func snapshot() -> (bytes: [UInt8], closed: Bool) {
        state.withLockedValue { ($0.bytes, $0.closed) }
    }

    func consume(_ count: Int) {
        state.withLockedValue { $0.bytes.removeFirst(count) }
    }
}

private final class InboxHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let inbox: Inbox

    init(inbox: Inbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbox.append(Self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.markClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)  // e.g. connection reset: treat as closed
    }
}
