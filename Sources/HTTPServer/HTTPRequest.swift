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
    /// The server's logger with `request_id` metadata set, so handler log lines carry it. Made
    /// when asked for: setting metadata copies the logger's storage, and most requests log nothing.
    public var logger: Logger {
        get {
            var logger = serverLogger
            logger[metadataKey: "request_id"] = .string(requestID)
            return logger
        }
        set { serverLogger = newValue }
    }
    private var serverLogger: Logger

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
        self.serverLogger = logger ?? Logger(label: "HTTPServer.request")
    }
}
