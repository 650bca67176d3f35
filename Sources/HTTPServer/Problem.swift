import NIOHTTP1

/// RFC 9457 problem details, the body of every error response (`application/problem+json`).
///
/// Handlers may `throw` one and turn it into a response with ``HTTPResponse/problem(_:)``.
/// `errors` is only for validation problems (one entry per offending field).
public struct Problem: Error, Sendable, Encodable, Equatable {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String?
    public var errors: [FieldError]?
    /// Added to the response, never encoded: Retry-After, WWW-Authenticate, Allow…
    public var headers: HTTPHeaders

    public init(
        status: HTTPResponseStatus, title: String? = nil, detail: String? = nil, type: String = "about:blank",
        errors: [FieldError]? = nil, headers: HTTPHeaders = [:]
    ) {
        self.type = type
        self.title = title ?? status.reasonPhrase
        self.status = Int(status.code)
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    private enum CodingKeys: String, CodingKey {
        case type, title, status, detail, errors
    }
}

/// One invalid field of a validation problem: `field` names it as the client sent it.
public struct FieldError: Sendable, Codable, Equatable {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}
