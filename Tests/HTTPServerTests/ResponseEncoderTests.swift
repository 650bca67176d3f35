import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HTTPServer

/// The connection's pipeline as the server builds it, on an EmbeddedChannel: what reaches the
/// socket for each kind of answer.
@Suite final class ResponseEncoderTests {
    private let channels = EmbeddedChannels()

    private func makeChannel() throws -> EmbeddedChannel {
        try channels.make { channel in
            try HTTPPipeline.configure(
                channel, configuration: HTTPServerConfiguration(), logger: Logger(label: "test"))
        }
    }

    private func head(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) -> ResponsePart {
        .head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))
    }

    /// Every buffer the pipeline wrote to the socket, in order.
    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var writes: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            writes.append(String(buffer: buffer))
        }
        return writes
    }

    @Test func aWholeAnswerGoesOutAsOneWrite() throws {
        let channel = try makeChannel()
        channel.write(head(.created, ["content-type": "application/json", "content-length": "2"]), promise: nil)
        channel.write(ResponsePart.body(.byteBuffer(ByteBuffer(string: "{}"))), promise: nil)
        channel.writeAndFlush(ResponsePart.end(nil), promise: nil)
        #expect(
            try written(channel) == [
                "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
            ])
    }

    @Test func anAnswerWithoutABodyIsItsHead() throws {
        let channel = try makeChannel()
        channel.write(head(.noContent, ["x-request-id": "r1"]), promise: nil)
        channel.writeAndFlush(ResponsePart.end(nil), promise: nil)
        #expect(try written(channel) == ["HTTP/1.1 204 No Content\r\nx-request-id: r1\r\n\r\n"])
    }

    @Test func anInterimHeadGoesOutWhenFlushedBeforeTheAnswer() throws {
        let channel = try makeChannel()
        channel.writeAndFlush(head(.continue, [:]), promise: nil)
        #expect(try written(channel) == ["HTTP/1.1 100 Continue\r\n\r\n"])
        channel.write(head(.ok, ["content-length": "0"]), promise: nil)
        channel.writeAndFlush(ResponsePart.end(nil), promise: nil)
        #expect(try written(channel) == ["HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"])
    }

    @Test func aStreamedBodyIsChunked() throws {
        let channel = try makeChannel()
        channel.writeAndFlush(head(.ok, ["transfer-encoding": "chunked"]), promise: nil)
        let piece = ByteBuffer(string: "0123456789abcdef!")
        channel.writeAndFlush(ResponsePart.body(.byteBuffer(piece)), promise: nil)
        channel.writeAndFlush(ResponsePart.body(.byteBuffer(ByteBuffer())), promise: nil)
        channel.writeAndFlush(ResponsePart.end(nil), promise: nil)
        #expect(
            try written(channel).joined()
                == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n11\r\n0123456789abcdef!\r\n0\r\n\r\n")
    }

    @Test func theEndsPromiseCompletesOnceTheAnswerIsWritten() throws {
        let channel = try makeChannel()
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.write(head(.ok, ["content-length": "1"]), promise: nil)
        channel.write(ResponsePart.body(.byteBuffer(ByteBuffer(string: "x"))), promise: nil)
        channel.writeAndFlush(ResponsePart.end(nil), promise: written)
        #expect(throws: Never.self) { try written.futureResult.wait() }
        #expect(try self.written(channel) == ["HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nx"])
    }

    /// The whole answer's bytes are the head `ResponseHead.make` gives, encoded, then the body.
    @Test(arguments: [
        (HTTPVersion.http1_1, HTTPResponseStatus.created, false, false),
        (.http1_1, .ok, true, false),
        (.http1_0, .ok, false, false),
        (.http1_1, .noContent, false, true),
        (.http1_1, .badRequest, false, true),
    ])
    func aWholeAnswerIsTheHeadMakeGivesThenItsBody(
        version: HTTPVersion, status: HTTPResponseStatus, isHeadRequest: Bool, close: Bool
    ) {
        let body = ByteBuffer(string: #"{"a":1}"#)
        let response = HTTPResponse(
            status: status, headers: ["content-type": "application/json", "Content-Length": "99"], body: .bytes(body))
        let sendsBody = !isHeadRequest && ResponseHead.statusAllowsBody(status)
        let whole = ResponseHead.encode(
            response, version: version, isHeadRequest: isHeadRequest, requestID: "r1", close: close,
            sendsBody: sendsBody, allocator: ByteBufferAllocator())
        var expected = ResponseEncoder.encode(
            ResponseHead.make(response, version: version, isHeadRequest: isHeadRequest, requestID: "r1", close: close),
            allocator: ByteBufferAllocator())
        if sendsBody { expected.writeImmutableBuffer(body) }
        #expect(String(buffer: whole) == String(buffer: expected))
        #expect(String(buffer: whole).hasPrefix("HTTP/1.\(version.minor) \(status.code) "))
    }
}
