import NIOCore
import NIOHTTP1

/// One request and its response on a connection: what its head says (keep-alive, body framing,
/// `Expect`), and what to do with it before any handler runs: routing and the body checks that
/// come first (415, 413, 417). Pure; ``HTTPConnectionHandler`` carries the plan out.
struct RequestExchange {
    /// What the head leads to.
    enum Plan {
        /// Answer without a handler (404, 405, 415, 417, …): see ``RequestExchange/closesAfterEarlyAnswer(_:)``.
        case answerEarly(HTTPResponse, route: String)
        /// Refuse and close: the body is not worth reading (declared past the limit).
        case refuse(RequestRejection, route: String)
        /// Read the whole body (up to `limit` bytes), then run the handler.
        case collect(HTTPRequest, Route, limit: Int?)
        /// Run the handler now, the body delivered as it arrives (up to `limit` bytes).
        case stream(HTTPRequest, Route, limit: Int?)
    }

    let head: HTTPRequestHead
    let isLastOnConnection: Bool
    let requestID: String
    let start = ContinuousClock.now

    init(head: HTTPRequestHead, isLastOnConnection: Bool) {
        self.head = head
        self.isLastOnConnection = isLastOnConnection
        self.requestID = RequestID.from(head.headers)
    }

    var keepAlive: Bool { head.isKeepAlive && !isLastOnConnection }
    var isHeadRequest: Bool { head.method == .HEAD }
    private var declaredLength: Int? { head.headers.first(name: "content-length").flatMap { Int($0) } }
    private var isChunked: Bool { head.headers.contains(name: "transfer-encoding") }
    private var hasBody: Bool { isChunked || (declaredLength ?? 0) > 0 }
    /// Whether the client waits for a `100 Continue` before sending the body it announced.
    var wantsContinue: Bool {
        hasBody && head.version == .http1_1 && head.headers.first(name: "expect")?.lowercased() == "100-continue"
    }

    func plan(_ context: ServerContext, remoteAddress: String?) -> Plan {
        guard head.uri.hasPrefix("/") else {
            return .answerEarly(
                .problem(Problem(status: .badRequest, detail: "The request target must be a path.")),
                route: AccessLog.unmatched)
        }
        let uri = head.uri
        let questionMark = uri.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = String(uri[..<(questionMark ?? uri.endIndex)])
        let query: QueryParameters? =
            if let questionMark { QueryParameters(parsing: uri[uri.utf8.index(after: questionMark)...]) } else {
                QueryParameters()
            }
        guard let segments = Router.decodeSegments(path), let query else {
            return .answerEarly(
                .problem(Problem(status: .badRequest, detail: "The request target has an invalid percent-encoding.")),
                route: AccessLog.unmatched)
        }

        switch context.router.match(method: head.method, segments: segments) {
        case .notFound:
            return .answerEarly(.problem(Problem(status: .notFound)), route: AccessLog.unmatched)
        case .methodNotAllowed(let allowed):
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            if head.method == .OPTIONS {
                return .answerEarly(
                    HTTPResponse.empty(.noContent).withHeader("allow", allow), route: AccessLog.unmatched)
            }
            return .answerEarly(
                .problem(Problem(status: .methodNotAllowed, headers: ["allow": allow])), route: AccessLog.unmatched)
        case .found(let route, let parameters):
            let request = HTTPRequest(
                method: head.method, path: path, query: query, headers: head.headers, pathParameters: parameters,
                requestID: requestID, remoteAddress: remoteAddress, routeTemplate: route.template,
                logger: context.logger)
            return plan(request, route: route, maxBodyBytes: context.configuration.maxBodyBytes)
        }
    }

    private func plan(_ request: HTTPRequest, route: Route, maxBodyBytes: Int) -> Plan {
        let contentType = head.headers.first(name: "content-type")
        let streams = route.body.streams(contentType: contentType)
        let limit: Int? =
            switch route.body {
            case .streamed: route.bodyLimit
            case .jsonOrStreamed where streams: nil
            default: route.bodyLimit ?? maxBodyBytes
            }
        if hasBody && !route.body.accepts(contentType: contentType) {
            return .answerEarly(
                .problem(
                    Problem(status: .unsupportedMediaType, detail: "This operation does not accept that Content-Type.")),
                route: route.template)
        }
        if let limit, let declaredLength, declaredLength > limit {
            return .refuse(.tooLarge(limit), route: route.template)
        }
        if let expect = head.headers.first(name: "expect"), expect.lowercased() != "100-continue" {
            return .answerEarly(.problem(Problem(status: .expectationFailed)), route: route.template)
        }
        return streams ? .stream(request, route, limit: limit) : .collect(request, route, limit: limit)
    }

    /// Whether an early answer closes the connection. A small declared body is read and dropped
    /// afterwards to keep the connection. Otherwise it closes: with `Expect` the client may never
    /// send the body, and a chunked or large one is not worth reading. A 400 here (a target that
    /// is not a path, bad percent-encoding) closes too: like a framing error, it shows a client
    /// whose idea of HTTP differs from ours, so nothing pipelined after it is answered.
    func closesAfterEarlyAnswer(_ response: HTTPResponse, maxBodyBytes: Int) -> Bool {
        let expectsContinue =
            head.headers.first(name: "expect")?.lowercased() == "100-continue" && head.version == .http1_1
        let worthDraining = !isChunked && !expectsContinue && (declaredLength ?? 0) <= maxBodyBytes
        return !keepAlive || (hasBody && !worthDraining) || response.status == .badRequest
    }

    /// Whether answering `response` closes the connection, given what was decided so far.
    func closes(answering response: HTTPResponse, close: Bool) -> Bool {
        // No chunked in HTTP/1.0: the end of a streamed body is the end of the connection.
        if case .stream = response.body, head.version != .http1_1, !isHeadRequest { return true }
        return close
    }
}

extension RequestRejection {
    static func tooLarge(_ limit: Int) -> Self {
        .init(status: .payloadTooLarge, detail: "The request body exceeds \(limit) bytes.")
    }

    /// The answer to a body that failed to arrive: nil when there is nobody to answer (reset,
    /// cancelled, closed).
    static func answering(bodyFailure error: any Error) -> RequestRejection? {
        switch error {
        case RequestBodyError.tooLarge(let limit): .tooLarge(limit)
        case is RequestRejection, is HTTPParserError: .from(error)
        default: nil
        }
    }
}
