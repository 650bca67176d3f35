import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A request as a handler sees it: routed, decoded and with its body read (or streaming).
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The raw path, without the query; log the route template instead (tokens live in paths).
    public var path: String
    public var query: QueryParameters
    public var headers: HTTPHeaders
    /// The whole body (empty when none), for routes that are not `.streamed`.
    public var body: ByteBuffer
    /// The body as it arrives, only for routes registered with `.streamed`; nil otherwise.
    public var bodyStream: RequestBodyStream?
    /// Template parameters, each percent-decoded after the path was split on `/`.
    public var pathParameters: [String: String]
    public var requestID: String
    /// The peer's IP address, without the port.
    public var remoteAddress: String?
    /// The matched template, e.g. "/v1/users/{user_id}/devices".
    public var routeTemplate: String
    /// The server's logger with `request_id` metadata set, so handler log lines carry it.
    public var logger: Logger

    public init(
        method: HTTPMethod, path: String, query: QueryParameters = QueryParameters(), headers: HTTPHeaders = [:],
        body: ByteBuffer = ByteBuffer(), bodyStream: RequestBodyStream? = nil, pathParameters: [String: String] = [:],
        requestID: String = RequestID.generate(), remoteAddress: String? = nil, routeTemplate: String = "",
        logger: Logger? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.pathParameters = pathParameters
        self.requestID = requestID
        self.remoteAddress = remoteAddress
        self.routeTemplate = routeTemplate
        var logger = logger ?? Logger(label: "HTTPServer.request")
        logger[metadataKey: "request_id"] = .string(requestID)
        self.logger = logger
    }

    /// Decodes the body as JSON, or throws a 400 ``Problem`` that names the offending field
    /// without echoing decoder internals.
    public func decodeJSON<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(Problem) -> T {
        do {
            return try decoder.decode(type, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw Problem(status: .badRequest, detail: Self.describe(error))
        } catch {
            throw Problem(status: .badRequest, detail: "The request body is not valid JSON.")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            return keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field '\(path(context, key))'."
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.codingPath.isEmpty
                ? "The request body has the wrong JSON type." : "Field '\(path(context))' has the wrong type."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "The request body is not valid JSON." : "Field '\(path(context))' is invalid."
        @unknown default:
            return "The request body is not valid JSON."
        }
    }
}
