import NIOHTTP1

/// A request the server refuses before any handler runs, answered with `status` and then the
/// connection is closed (the byte stream can no longer be trusted or is not worth reading).
struct RequestRejection: Error, Equatable {
    var status: HTTPResponseStatus
    var detail: String

    static func requestLineTooLong(_ limit: Int) -> Self {
        .init(status: .uriTooLong, detail: "The request line exceeds \(limit) bytes.")
    }
    static func headersTooLarge(_ limit: Int) -> Self {
        .init(status: .requestHeaderFieldsTooLarge, detail: "The header block exceeds \(limit) bytes.")
    }
    static func tooManyHeaders(_ limit: Int) -> Self {
        .init(status: .requestHeaderFieldsTooLarge, detail: "The request has more than \(limit) header fields.")
    }
    static func malformed(_ detail: String) -> Self {
        .init(status: .badRequest, detail: detail)
    }
    static let unsupportedTransferEncoding = RequestRejection(
        status: .notImplemented, detail: "Only 'Transfer-Encoding: chunked' is supported.")

    /// Maps errors from NIO's HTTP decoder: a generic 400, except header overflow (431).
    static func from(_ error: any Error) -> RequestRejection {
        if let rejection = error as? RequestRejection { return rejection }
        if let parserError = error as? HTTPParserError, parserError == .headerOverflow {
            return .init(status: .requestHeaderFieldsTooLarge, detail: "The header block is too large.")
        }
        return .malformed("The request is not valid HTTP/1.1.")
    }
}
