import NIOCore
import NIOHTTP1

/// The one place that decides a response's server-owned headers: framing (Content-Length or
/// chunked), `X-Request-ID` and `Connection`.
enum ResponseHead {
    /// Whether the response may carry a body at all (RFC 9110: not 1xx, 204, 304).
    static func statusAllowsBody(_ status: HTTPResponseStatus) -> Bool {
        status.code >= 200 && status != .noContent && status != .notModified
    }

    /// The head for `response`. A HEAD request gets the same headers as GET would, including
    /// Content-Length, but a streamed body's `chunked` is left out because the encoder would
    /// otherwise write a terminating chunk. HTTP/1.0 cannot do chunked, so a stream to a 1.0
    /// client is delimited by closing, which the caller must request with `close`.
    static func make(
        _ response: HTTPResponse, version: HTTPVersion, isHeadRequest: Bool, requestID: String, close: Bool
    ) -> HTTPResponseHead {
        // Built once at its size, not edited (each removal and replacement of an edited copy
        // copied or grew its array).
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.headers.count + 3)
        fields(response, version: version, isHeadRequest: isHeadRequest, requestID: requestID, close: close) {
            headers.add(name: $0, value: $1)
        }
        return HTTPResponseHead(version: version, status: response.status, headers: headers)
    }

    /// A whole `.bytes` answer as it goes on the wire, in one buffer: the head `make` would give,
    /// then the body unless `sendsBody` is false (a HEAD request, a status without a body). No
    /// `HTTPHeaders` and no head object: two allocations fewer per answer.
    static func encode(
        _ response: HTTPResponse, version: HTTPVersion, isHeadRequest: Bool, requestID: String, close: Bool,
        sendsBody: Bool, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        var body = ByteBuffer()
        if sendsBody, case .bytes(let bytes) = response.body { body = bytes }
        var size = ResponseEncoder.statusLineSize(response.status) + 2 + body.readableBytes
        fields(response, version: version, isHeadRequest: isHeadRequest, requestID: requestID, close: close) {
            size += ResponseEncoder.fieldSize($0, $1)
        }
        var buffer = allocator.buffer(capacity: size)
        ResponseEncoder.writeStatusLine(version, response.status, to: &buffer)
        fields(response, version: version, isHeadRequest: isHeadRequest, requestID: requestID, close: close) {
            ResponseEncoder.writeField($0, $1, to: &buffer)
        }
        buffer.writeStaticString("\r\n")
        buffer.writeBuffer(&body)
        return buffer
    }

    /// The head's fields, in order: the handler's headers without the ones owned here, then
    /// framing, `X-Request-ID` and `Connection`.
    private static func fields(
        _ response: HTTPResponse, version: HTTPVersion, isHeadRequest: Bool, requestID: String, close: Bool,
        _ field: (String, String) -> Void
    ) {
        for (name, value) in response.headers where !isServerOwned(name) {
            field(name, value)
        }
        if statusAllowsBody(response.status) {
            switch response.body {
            case .bytes(let buffer):
                field("content-length", String(buffer.readableBytes))
            case .stream:
                if version == .http1_1 && !isHeadRequest {
                    field("transfer-encoding", "chunked")
                }
            }
        }
        field("x-request-id", requestID)
        if close {
            field("connection", "close")
        } else if version == .http1_0 {
            field("connection", "keep-alive")
        }
    }

    private static let serverOwned: [String.UTF8View] = [
        "content-length".utf8, "transfer-encoding".utf8, "x-request-id".utf8, "connection".utf8,
    ]

    /// Whether `name` is one of the headers `make` decides, in any case.
    private static func isServerOwned(_ name: String) -> Bool {
        serverOwned.contains { equalIgnoringASCIICase(name.utf8, $0) }
    }

    /// Writes a whole `.bytes` response from inside the pipeline (for answers no handler gives,
    /// such as the 408), with `Connection: close`, and calls `then` once it is written.
    static func writeStandalone(
        _ response: HTTPResponse, requestID: String, context: ChannelHandlerContext, then: @escaping () -> Void
    ) {
        let whole = encode(
            response, version: .http1_1, isHeadRequest: false, requestID: requestID, close: true, sendsBody: true,
            allocator: context.channel.allocator)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(ResponsePart.whole(whole, closes: true)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in then() }
    }
}
