import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import PushDelivery

/// The stream rules, on an `EmbeddedChannel` with a manual clock: frames in, frames out, no sockets.
@Suite struct PushStreamHandlerTests {
    struct Setup {
        let channel: EmbeddedChannel
        let loop: EmbeddedEventLoop
        let handler: PushStreamHandler
        let state: NIOLockedValueBox<ConnectionState>
    }

    /// A request's answer, once its completion has run.
    typealias Answer = NIOLockedValueBox<Result<PushHTTPResponse, PushStreamHandler.Failure>?>

    func setUp() throws -> Setup {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let state = NIOLockedValueBox(ConnectionState())
        let handler = PushStreamHandler(state: state)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return Setup(channel: channel, loop: loop, handler: handler, state: state)
    }

    /// Starts a request with `timeout` and returns its result, filled in when it completes.
    func start(_ setup: Setup, path: String = "/3/device/ab", timeout: TimeAmount = .seconds(10)) -> Answer {
        let result = Answer(nil)
        var request = PushHTTPRequest(authority: "push.example", path: path, body: Array("{}".utf8), fields: 1)
        request.add("apns-topic", "com.example")
        setup.handler.start(request, timeout: timeout) { outcome in result.withLockedValue { $0 = outcome } }
        setup.loop.run()  // The flush of the turn's streams.
        return result
    }

    func failure(_ result: Answer) -> PushStreamHandler.Failure? {
        guard case .failure(let error) = result.withLockedValue({ $0 }) else { return nil }
        return error
    }

    @Test func aRequestIsOneHeadersAndOneDataFrameOnANewOddStreamAndItsAnswerCompletesIt() throws {
        let setup = try setUp()
        let first = start(setup)
        let second = start(setup, path: "/3/device/cd")
        let headers = try #require(try setup.channel.readOutbound(as: HTTP2Frame.self))
        #expect(headers.streamID == 1)
        guard case .headers(let sent) = headers.payload else {
            Issue.record("not HEADERS: \(headers)")
            return
        }
        #expect(sent.headers.first(name: ":path") == "/3/device/ab")
        #expect(sent.headers.first(name: ":authority") == "push.example")
        #expect(sent.headers.first(name: "apns-topic") == "com.example")
        #expect(sent.headers.first(name: "content-length") == "2")
        let data = try #require(try setup.channel.readOutbound(as: HTTP2Frame.self))
        guard case .data(let body) = data.payload else {
            Issue.record("not DATA: \(data)")
            return
        }
        #expect(body.endStream)
        #expect(try setup.channel.readOutbound(as: HTTP2Frame.self)?.streamID == 3)

        try setup.channel.writeInbound(
            HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "200", "apns-id": "x"]))))
        #expect(first.withLockedValue { $0 } == nil)
        try setup.channel.writeInbound(
            HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: "{}")), endStream: true)))
        )
        let response = try #require(try first.withLockedValue { $0 }?.get())
        #expect(response.status == 200)
        #expect(response.header("apns-id") == "x")
        #expect(response.body == Array("{}".utf8))
        #expect(second.withLockedValue { $0 } == nil)
    }

    @Test func aStreamTheServerRefusedOrLeftOutOfAGoawayWasNotProcessed() throws {
        let setup = try setUp()
        let refused = start(setup)
        let cancelled = start(setup)
        let reset = start(setup)
        while try setup.channel.readOutbound(as: HTTP2Frame.self) != nil {}
        try setup.channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "200"]))))
        setup.channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: .refusedStream))
        setup.channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 3, reason: .cancel))
        setup.channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 5, reason: .internalError))
        #expect(failure(refused)?.reason == .closed)
        #expect(failure(cancelled)?.reason == .closed)
        #expect(failure(reset)?.reason == .lost)
        #expect(failure(reset)?.written == true)
    }

    @Test func anUnansweredStreamTimesOutAndIsReset() throws {
        let setup = try setUp()
        let result = start(setup, timeout: .seconds(2))
        while try setup.channel.readOutbound(as: HTTP2Frame.self) != nil {}
        setup.loop.advanceTime(by: .seconds(1))
        #expect(result.withLockedValue { $0 } == nil)
        setup.loop.advanceTime(by: .seconds(1))
        #expect(failure(result)?.reason == .timedOut)
        #expect(failure(result)?.written == true)
        let reset = try #require(try setup.channel.readOutbound(as: HTTP2Frame.self))
        #expect(reset.streamID == 1)
        guard case .rstStream(.cancel) = reset.payload else {
            Issue.record("not RST_STREAM: \(reset)")
            return
        }
        // A late answer belongs to no request.
        try setup.channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "200"]))))
    }

    /// One timer serves every stream: each still times out at its own deadline, in whatever
    /// order they were started, and an answered stream never does.
    @Test func everyStreamTimesOutAtItsOwnDeadlineWhateverTheOrder() throws {
        let setup = try setUp()
        let long = start(setup, timeout: .seconds(3))
        let answered = start(setup, timeout: .seconds(1))
        let short = start(setup, timeout: .seconds(2))
        while try setup.channel.readOutbound(as: HTTP2Frame.self) != nil {}
        try setup.channel.writeInbound(
            HTTP2Frame(streamID: 3, payload: .headers(.init(headers: [":status": "200"], endStream: true))))
        setup.loop.advanceTime(by: .seconds(1))
        #expect(try answered.withLockedValue { $0 }?.get().status == 200)
        #expect(short.withLockedValue { $0 } == nil)
        setup.loop.advanceTime(by: .seconds(1))
        #expect(failure(short)?.reason == .timedOut)
        #expect(long.withLockedValue { $0 } == nil)
        #expect(try setup.channel.readOutbound(as: HTTP2Frame.self)?.streamID == 5)
        setup.loop.advanceTime(by: .seconds(1))
        #expect(failure(long)?.reason == .timedOut)
        #expect(try setup.channel.readOutbound(as: HTTP2Frame.self)?.streamID == 1)
    }

    /// A path that names one device is sent without a place in the HPACK table.
    @Test func aUniquePathIsNotIndexed() throws {
        let setup = try setUp()
        let request = PushHTTPRequest(
            authority: "push.example", path: "/3/device/ab", pathIsUnique: true, body: [], fields: 0)
        setup.handler.start(request, timeout: .seconds(1)) { _ in }
        setup.loop.run()
        let headers = try #require(try setup.channel.readOutbound(as: HTTP2Frame.self))
        guard case .headers(let sent) = headers.payload else {
            Issue.record("not HEADERS: \(headers)")
            return
        }
        #expect(sent.headers.contains { $0.name == ":path" && $0.indexable == .nonIndexable })
        #expect(sent.headers.contains { $0.name == ":authority" && $0.indexable == .indexable })
        try setup.channel.close().wait()
    }

    @Test func aClosedConnectionLosesEveryOpenStream() throws {
        let setup = try setUp()
        let result = start(setup)
        while try setup.channel.readOutbound(as: HTTP2Frame.self) != nil {}
        try setup.channel.close().wait()
        #expect(failure(result)?.reason == .lost)
        #expect(failure(result)?.written == true)
    }

    @Test func theConnectionsReceiveWindowIsGivenBackAsAnswersAreRead() throws {
        let setup = try setUp()
        let results = (0..<40).map { _ in start(setup) }
        while try setup.channel.readOutbound(as: HTTP2Frame.self) != nil {}
        let body = String(repeating: "x", count: 1000)
        for index in results.indices {
            let id = HTTP2StreamID(1 + 2 * index)
            try setup.channel.writeInbound(
                HTTP2Frame(streamID: id, payload: .headers(.init(headers: [":status": "400"]))))
            try setup.channel.writeInbound(
                HTTP2Frame(
                    streamID: id, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true))))
        }
        let update = try #require(try setup.channel.readOutbound(as: HTTP2Frame.self))
        guard case .windowUpdate(let increment) = update.payload else {
            Issue.record("not WINDOW_UPDATE: \(update)")
            return
        }
        // Given back at the first read that brings it to 32 KiB, the rest later.
        #expect(update.streamID == .rootStream)
        #expect(increment == 33_000)
        #expect(try setup.channel.readOutbound(as: HTTP2Frame.self) == nil)
        #expect(results.allSatisfy { (try? $0.withLockedValue { $0 }?.get())?.body.count == 1000 })
    }

    @Test func theConnectionsOwnFramesGoOnToTheObserver() throws {
        let setup = try setUp()
        try setup.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(), ack: true)))
        #expect(try setup.channel.readInbound(as: HTTP2Frame.self)?.streamID == .rootStream)
    }
}
