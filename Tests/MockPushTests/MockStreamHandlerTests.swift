import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import MockPush

/// How the mock reads one HTTP/2 stream, on an `EmbeddedChannel`: clients that name the server
/// with `host` instead of `:authority` (RFC 9113 §8.3.1 allows it; aioapns does it) get their
/// answer, and a stream that cannot be read is reset instead of left waiting.
@Suite struct MockStreamHandlerTests {
    static let path = "/3/device/" + String(repeating: "ab", count: 32)

    func stream(_ state: MockPushState) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            MockStreamHandler(router: MockRouter(state: state), connection: 1))
        return channel
    }

    func send(_ headers: HPACKHeaders, body: String, on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: false)))
        try channel.writeInbound(
            HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true)))
    }

    func status(on channel: EmbeddedChannel) throws -> String? {
        guard case .headers(let frame)? = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else {
            return nil
        }
        return frame.headers.first(name: ":status")
    }

    @Test func aRequestNamingTheServerWithHostIsAnswered() throws {
        let state = MockPushState()
        let channel = try stream(state)
        try send(
            [":method": "POST", ":scheme": "https", ":path": Self.path, "host": "api.push.apple.com"], body: "{}",
            on: channel)
        #expect(try status(on: channel) == "403")  // MissingProviderToken: read, checked and answered.
        #expect(state.recordedRequests.first?.headers["host"] == "api.push.apple.com")
        #expect(state.recordedRequests.first?.path == Self.path)
    }

    @Test func theAuthorityIsRecordedAsHost() throws {
        let state = MockPushState()
        let channel = try stream(state)
        try send(
            [":method": "POST", ":scheme": "https", ":path": Self.path, ":authority": "localhost:8443"], body: "{}",
            on: channel)
        #expect(try status(on: channel) == "403")
        #expect(state.recordedRequests.first?.headers["host"] == "localhost:8443")
    }

    @Test func aStreamWithoutAPathIsResetNotLeftWaiting() throws {
        let state = MockPushState()
        let channel = try stream(state)
        try send([":method": "POST", ":scheme": "https"], body: "{}", on: channel)
        #expect(!channel.isActive)
        #expect(state.recordedRequests.isEmpty)
    }
}
