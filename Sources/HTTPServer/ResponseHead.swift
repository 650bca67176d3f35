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
        // copied or grew its array): the handler's headers without the ones owned here, in their
        // order, then framing, `X-Request-ID` and `Connection`.
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.headers.count + 3)
        for (name, value) in response.headers where !isServerOwned(name) {
            headers.add(name: name, value: value)
        }
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
        headers.add(name: "x-request-id", value: requestID)
        if close {
            headers.add(name: "connection", value: "close")
        } else if version == .http1_0 {
            headers.add(name: "connection", value: "keep-alive")
        }
        return HTTPResponseHead(version: version, status: response.status, headers: headers)
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
