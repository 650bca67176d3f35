import Foundation
import NIOCore
import NIOHTTP1

/// What a handler answers. The server adds the framing headers (Content-Length or chunked),
/// `X-Request-ID` and `Connection`; handlers set everything else.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        /// A complete body, sent with Content-Length.
        case bytes(ByteBuffer)
        /// A body produced over time, sent chunked; the server awaits each write, so a slow
        /// client slows the producer instead of growing a buffer.
        case stream(AsyncStream<ByteBuffer>)
    }

    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: Body
    /// Extra fields for the access log line (e.g. "key_id"); never sent to the client.
    public var logMetadata: [String: String]

    public init(
        status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: Body = .bytes(ByteBuffer()),
        logMetadata: [String: String] = [:]
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.logMetadata = logMetadata
    }

    /// `value` as JSON (keys sorted, so output is stable for tests and caches).
    ///
    /// An encoding failure is a programming error in a handler's types; the client gets a bare
    /// 500 problem and never the encoder's message.
    public static func json<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:])
        -> HTTPResponse
    {
        json(value, status: status, headers: headers, encoder: JSONCoding.encoder)
    }

    /// `value` as the JSON it writes itself, the same bytes as the overload above would send.
    public static func json<T: SelfWrittenJSON>(
        _ value: T, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        // Allocated at its size: `ByteBuffer()` allocates too, and reserving then copies it.
        var body = ByteBufferAllocator().buffer(capacity: value.jsonCapacity)
        value.writeJSON(to: &body)
        return .json(encoded: body, status: status, headers: headers)
    }

    /// `value` encoded with a caller's encoder (e.g. for a date strategy); same failure rule.
    public static func json<T: Encodable>(
        _ value: T, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:], encoder: JSONEncoder
    ) -> HTTPResponse {
        guard let data = try? encoder.encode(value) else {
            return .problem(Problem(status: .internalServerError))
        }
        return .json(encoded: ByteBuffer(bytes: data), status: status, headers: headers)
    }

    /// Already-encoded JSON bytes, for handlers that build or cache the body themselves.
    public static func json(encoded body: ByteBuffer, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:])
        -> HTTPResponse
    {
        if headers.isEmpty { return HTTPResponse(status: status, headers: jsonHeaders, body: .bytes(body)) }
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: .bytes(body))
    }

    /// Shared by every JSON answer without headers of its own: no header array made per response.
    private static let jsonHeaders: HTTPHeaders = ["content-type": "application/json"]

    /// An RFC 9457 problem response; the problem's `headers` are added to the response.
    public static func problem(_ problem: Problem) -> HTTPResponse {
        let status = HTTPResponseStatus(statusCode: problem.status)
        var headers = problem.headers
        headers.replaceOrAdd(name: "content-type", value: "application/problem+json")
        // Problem has only strings, ints and arrays of strings: encoding cannot fail.
        let data = (try? JSONCoding.encoder.encode(problem)) ?? Data()
        return HTTPResponse(status: status, headers: headers, body: .bytes(ByteBuffer(bytes: data)))
    }

    /// A response without a body, e.g. 204 No Content.
    public static func empty(_ status: HTTPResponseStatus) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    /// A copy with `name` set to `value` (replacing any earlier value).
    public func withHeader(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.replaceOrAdd(name: name, value: value)
        return copy
    }
}

enum JSONCoding {
    // One shared, Sendable encoder avoids per-response setup.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
