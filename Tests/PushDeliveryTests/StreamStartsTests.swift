import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import PushDelivery

/// Requests handed to a connection's event loop from elsewhere, started there together.
@Suite struct StreamStartsTests {
    /// Their bodies share one buffer (`StreamStarts.startWaiting`): each stream still carries its own.
    @Test func requestsStartedTogetherFromOffTheLoopEachCarryTheirOwnBody() async throws {
        let channel = NIOAsyncTestingChannel()
        let streams = try await channel.eventLoop.submit {
            let handler = PushStreamHandler(state: NIOLockedValueBox(ConnectionState()))
            try channel.pipeline.syncOperations.addHandler(handler)
            return NIOLoopBound(handler, eventLoop: channel.eventLoop)
        }.get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443))
        let starts = StreamStarts(streams: streams)
        let bodies = ["{\"a\":1}", "", "{\"bb\":22}"]
        #expect(!channel.eventLoop.inEventLoop)
        for body in bodies {
            let request = PushHTTPRequest(authority: "push.example", path: "/", body: Array(body.utf8), fields: 0)
            starts.start(request, timeout: .seconds(10), completion: .call { _ in })
        }
        await channel.testingEventLoop.run()
        var sent: [HTTP2StreamID: String] = [:]
        while let frame = try await channel.readOutbound(as: HTTP2Frame.self) {
            if case .data(let data) = frame.payload, case .byteBuffer(let buffer) = data.data {
                sent[frame.streamID] = String(buffer: buffer)
            }
        }
        #expect(sent == [1: bodies[0], 3: bodies[1], 5: bodies[2]])
        try await channel.close()
    }
}
