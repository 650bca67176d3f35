import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import PushDelivery

/// The connection rules, on an `EmbeddedChannel`: no sockets, no waiting.
@Suite struct ConnectionObserverTests {
    struct Setup {
        let channel: EmbeddedChannel
        let state: NIOLockedValueBox<ConnectionState>
        let ready: EventLoopFuture<Void>
    }

    func setUp() throws -> Setup {
        let channel = EmbeddedChannel()
        let state = NIOLockedValueBox(ConnectionState())
        let ready = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(ConnectionObserver(state: state, ready: ready))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return Setup(channel: channel, state: state, ready: ready.futureResult)
    }

    @Test func theServersSettingsSetTheStreamLimitAndMakeTheConnectionReady() throws {
        let setup = try setUp()
        let settled = NIOLockedValueBox(false)
        setup.ready.whenSuccess { settled.withLockedValue { $0 = true } }
        try setup.channel.writeInbound(
            HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)]))))
        #expect(settled.withLockedValue { $0 })
        #expect(setup.state.withLockedValue { $0.maximumStreams } == 2)
        setup.state.withLockedValue { $0.openStreams = 2 }
        #expect(!setup.state.withLockedValue { $0.canTakeStream })
    }

    @Test func aGoawayRetiresTheConnection() throws {
        let setup = try setUp()
        try setup.channel.writeInbound(
            HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil)))
        #expect(setup.state.withLockedValue { $0.retired })
        #expect(!setup.state.withLockedValue { $0.canTakeStream })
    }
}
