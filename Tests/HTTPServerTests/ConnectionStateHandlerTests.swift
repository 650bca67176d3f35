import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HTTPServer

/// The connection rules on an EmbeddedChannel with a virtual clock: no sockets, no sleeping.
@Suite final class ConnectionStateHandlerTests {
    private let timeouts = ConnectionStateHandler.Timeouts(
        idle: .seconds(60), headerRead: .seconds(10), bodyRead: .seconds(10))
    private let channels = EmbeddedChannels()

    private func makeChannel() throws -> EmbeddedChannel {
        try channels.make { [timeouts] in
            try $0.pipeline.syncOperations.addHandler(ConnectionStateHandler(timeouts: timeouts))
        }
    }

    private let requestHead = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/")

    private func respond(_ channel: EmbeddedChannel, headers: HTTPHeaders = [:]) throws {
        try channel.writeOutbound(
            ResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        try channel.writeOutbound(ResponsePart.end(nil))
    }

    /// Delivers a decoded part as a socket read would, including autoRead's next `read()`.
    private func deliver(_ channel: EmbeddedChannel, _ part: HTTPServerRequestPart) throws {
        try channel.writeInbound(part)
        channel.read()
    }

    /// The heads written, including those of whole answers (read back from their bytes).
    private func outboundHeads(_ channel: EmbeddedChannel) throws -> [HTTPResponseHead] {
        var heads: [HTTPResponseHead] = []
        while let part = try channel.readOutbound(as: ResponsePart.self) {
            switch part {
            case .head(let head): heads.append(head)
            case .whole(let bytes, _): heads.append(Self.head(of: bytes))
            case .body, .end: break
            }
        }
        return heads
    }

    private static func head(of whole: ByteBuffer) -> HTTPResponseHead {
        let lines = String(buffer: whole).components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        let code = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            headers.add(name: String(field[0]), value: field[1].trimmingCharacters(in: .whitespaces))
        }
        return HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: code), headers: headers)
    }

    @Test func idleConnectionIsClosedAfterTheIdleTimeout() throws {
        let channel = try makeChannel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aClientThatStopsReadingIsCutOffAfterTheWriteTimeout() throws {
        let channel = try makeChannel()
        channel.isWritable = false  // the outbound buffer is full: the client reads nothing
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aClientThatCatchesUpIsNotCutOff() throws {
        let channel = try makeChannel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        #expect(channel.isActive)
    }

    @Test func idleTimerRestartsAfterEachResponse() throws {
        let channel = try makeChannel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(50))
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(50))  // the request in flight is not idle time
        try respond(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func slowHeadersGetA408AndTheConnectionCloses() throws {
        let channel = try makeChannel()
        channel.read()
        channel.pipeline.fireUserInboundEventTriggered(RequestHeadStarted())
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let heads = try outboundHeads(channel)
        #expect(heads.map(\.status) == [.requestTimeout])
        #expect(heads.first?.headers["connection"] == ["close"])
        #expect(heads.first?.headers["x-request-id"].first?.count == 32)
        #expect(!channel.isActive)
    }

    @Test func headerTimeoutIsADeadlineNotReset() throws {
        let channel = try makeChannel()
        channel.read()
        channel.pipeline.fireUserInboundEventTriggered(RequestHeadStarted())
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        channel.pipeline.fireChannelReadComplete()  // more header bytes trickled in…
        channel.read()
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))  // …but the deadline holds
        #expect(!channel.isActive)
    }

    @Test func headerTimeoutWithAResponseInFlightClosesWithout408() throws {
        let channel = try makeChannel()
        channel.read()
        try deliver(channel, HTTPServerRequestPart.head(requestHead))
        try deliver(channel, HTTPServerRequestPart.end(nil))
        channel.pipeline.fireUserInboundEventTriggered(RequestHeadStarted())  // pipelined, trickling
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(try outboundHeads(channel).isEmpty)
        #expect(!channel.isActive)
    }

    @Test func stalledBodyIsCutOff() throws {
        let channel = try makeChannel()
        channel.read()
        try deliver(channel, HTTPServerRequestPart.head(requestHead))
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        try deliver(channel, HTTPServerRequestPart.body(ByteBuffer(string: "ab")))  // progress resets it
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test func bodyTimeoutWaitsWhileTheServerPausedReading() throws {
        let channel = try makeChannel()
        channel.read()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        channel.pipeline.fireChannelReadComplete()  // and no read() follows: the consumer is behind
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(channel.isActive)
        channel.read()  // the consumer caught up; the client gets a fresh timeout
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func connectionCloseResponseClosesOnceWritten() throws {
        let channel = try makeChannel()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try respond(channel, headers: ["connection": "close"])
        #expect(!channel.isActive)
    }

    @Test func aWholeAnswerThatClosesClosesOnceWritten() throws {
        let channel = try makeChannel()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        let answer = ByteBuffer(string: "HTTP/1.1 204 No Content\r\n\r\n")
        try channel.writeOutbound(ResponsePart.whole(answer, closes: false))
        #expect(channel.isActive)
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeOutbound(ResponsePart.whole(ByteBuffer(), closes: true))
        #expect(!channel.isActive)
    }

    @Test func keepAliveResponseLeavesTheConnectionOpen() throws {
        let channel = try makeChannel()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try respond(channel)
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func quiescingClosesAnIdleConnectionAfterTheQuiescedIdleTimeout() throws {
        let channel = try makeChannel()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        channel.embeddedEventLoop.advanceTime(by: timeouts.quiescedIdle - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aRequestAlreadySentToAQuiescedIdleConnectionIsAnsweredThenClosed() throws {
        let channel = try makeChannel()
        channel.read()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))  // the client's next request was on its way
        channel.pipeline.fireUserInboundEventTriggered(RequestHeadStarted())
        try deliver(channel, HTTPServerRequestPart.head(requestHead))
        try deliver(channel, HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: timeouts.quiescedIdle)  // the handler takes its time
        #expect(channel.isActive)
        try respond(channel)
        #expect(try outboundHeads(channel).first?.headers["connection"] == ["close"])
        #expect(!channel.isActive)
    }

    @Test func quiescingLetsTheInFlightRequestFinishWithConnectionClose() throws {
        let channel = try makeChannel()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive)
        try respond(channel)
        #expect(try outboundHeads(channel).first?.headers["connection"] == ["close"])
        #expect(!channel.isActive)
    }

    @Test func interimResponsesDoNotCountAsTheAnswer() throws {
        let channel = try makeChannel()
        try channel.writeInbound(HTTPServerRequestPart.head(requestHead))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        try channel.writeOutbound(ResponsePart.head(HTTPResponseHead(version: .http1_1, status: .continue)))
        #expect(try outboundHeads(channel).first?.headers["connection"] == [])
        #expect(channel.isActive)
        _ = try? channel.finish()
    }
}
