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
        var headers = response.headers
        headers.remove(name: "content-length")
        headers.remove(name: "transfer-encoding")
        if statusAllowsBody(response.status) {
            switch response.body {
            case .bytes(let buffer):
                headers.add(name: "content-length", value: String(buffer.readableBytes))
            case .stream:
                if version == .http1_1 && !isHeadRequest {
                    headers.add(name: "transfer-encoding", value: "chunked")
                }
            }
        }
        headers.replaceOrAdd(name: "x-request-id", value: requestID)
        if close {
            headers.replaceOrAdd(name: "connection", value: "close")
        } else if version == .http1_0 {
            headers.replaceOrAdd(name: "connection", value: "keep-alive")
        } else {
            headers.remove(name: "connection")
        }
        return HTTPResponseHead(version: version, status: response.status, headers: headers)
    }

    /// Writes a whole `.bytes` response from inside the pipeline (for answers no handler gives,
    /// such as the 408), with `Connection: close`, and calls `then` once it is written.
    static func writeStandalone(
        _ response: HTTPResponse, requestID: String, context: ChannelHandlerContext, then: @escaping () -> Void
    ) {
        let head = make(response, version: .http1_1, isHeadRequest: false, requestID: requestID, close: true)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        if case .bytes(let buffer) = response.body, buffer.readableBytes > 0 {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in then() }
    }
}
