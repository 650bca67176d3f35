import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import PushDelivery

/// The health rule applied to a channel, on an `EmbeddedChannel` whose clock the test advances.
@Suite struct ConnectionHealthHandlerTests {
    struct Setup {
        let channel: EmbeddedChannel
        let handler: ConnectionHealthHandler
        let state: NIOLockedValueBox<ConnectionState>
    }

    func setUp(openStreams: Int) throws -> Setup {
        let channel = EmbeddedChannel()
        let state = NIOLockedValueBox(ConnectionState(openStreams: openStreams))
        let handler = ConnectionHealthHandler(
            health: ConnectionHealth(
                idleInterval: .seconds(60), answerTimeout: .seconds(1), now: channel.eventLoop.now),
            state: state)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return Setup(channel: channel, handler: handler, state: state)
    }

    func expectPing(_ channel: EmbeddedChannel) throws {
        let frame = try #require(try channel.readOutbound(as: HTTP2Frame.self))
        guard case .ping(_, ack: false) = frame.payload else {
            Issue.record("not a PING: \(frame)")
            return
        }
    }

    @Test func silenceUnderTrafficIsPingedThenTheDeadConnectionIsRetiredAndClosed() throws {
        let setup = try setUp(openStreams: 2)
        setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1000))
        try expectPing(setup.channel)
        #expect(setup.channel.isActive)
        setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1000))
        #expect(!setup.channel.isActive)
        #expect(setup.state.withLockedValue { $0.retired })
    }

    @Test func bytesReadAfterThePingKeepTheConnection() throws {
        let setup = try setUp(openStreams: 1)
        setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1000))
        try expectPing(setup.channel)
        try setup.channel.writeInbound(ByteBuffer(bytes: [0]))
        setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(750))
        #expect(setup.channel.isActive)
        #expect(!setup.state.withLockedValue { $0.retired })
    }

    @Test func aProbeAfterAStreamTimeoutPingsAtOnceAndLearnsTheConnectionIsAlive() throws {
        let setup = try setUp(openStreams: 0)
        let promise = setup.channel.eventLoop.makePromise(of: Bool.self)
        setup.handler.probe(promise)
        try expectPing(setup.channel)
        try setup.channel.writeInbound(ByteBuffer(bytes: [0]))
        #expect(try promise.futureResult.wait())
    }

    @Test func aProbeUnansweredForOneSecondFindsTheConnectionDead() throws {
        let setup = try setUp(openStreams: 1)
        let promise = setup.channel.eventLoop.makePromise(of: Bool.self)
        setup.handler.probe(promise)
        try expectPing(setup.channel)
        setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1000))
        #expect(try !promise.futureResult.wait())
        #expect(!setup.channel.isActive)
    }
}
