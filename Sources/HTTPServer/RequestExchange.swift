import Logging
import NIOCore
import NIOHTTP1

/// One request and its response on a connection: routing, the body checks that come before
/// any handler (415, 413, `Expect`), reading the body, running the handler, writing the answer.
struct RequestExchange {
    /// What becomes of the connection after this exchange.
    enum Disposition {
        case keepAlive
        /// The response said `Connection: close`; ConnectionStateHandler closes once it is written.
        case closeAfterResponse
        /// Close now: the client is gone or the byte stream cannot be followed any more.
        case abort
    }

    let head: HTTPRequestHead
    let isLastOnConnection: Bool
    let remoteAddress: String?
    let reader: RequestPartReader
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let context: ServerContext

    private let start = ContinuousClock.now
    private let requestID: String

    init(
        head: HTTPRequestHead, isLastOnConnection: Bool, remoteAddress: String?, reader: RequestPartReader,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, context: ServerContext
    ) {
        self.head = head
        self.isLastOnConnection = isLastOnConnection
        self.remoteAddress = remoteAddress
        self.reader = reader
        self.outbound = outbound
        self.context = context
        self.requestID = RequestID.from(head.headers)
    }

    private var keepAlive: Bool { head.isKeepAlive && !isLastOnConnection }
    private var declaredLength: Int? { head.headers.first(name: "content-length").flatMap { Int($0) } }
    private var isChunked: Bool { head.headers.contains(name: "transfer-encoding") }
    private var hasBody: Bool { isChunked || (declaredLength ?? 0) > 0 }
    private var expectsContinue: Bool {
        head.headers.first(name: "expect")?.lowercased() == "100-continue" && head.version == .http1_1
    }

    /// Serves the request and says what becomes of the connection.
    func run() async throws -> Disposition {
        guard head.uri.hasPrefix("/") else {
            return try await answerEarly(
                .problem(Problem(status: .badRequest, detail: "The request target must be a path.")))
        }
        let target = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(target[0])
        guard let segments = Router.decodeSegments(path),
            let query = target.count > 1 ? QueryParameters(parsing: target[1]) : QueryParameters()
        else {
            return try await answerEarly(
                .problem(Problem(status: .badRequest, detail: "The request target has an invalid percent-encoding.")))
        }

        switch context.router.match(method: head.method, segments: segments) {
        case .notFound:
            return try await answerEarly(.problem(Problem(status: .notFound)))
        case .methodNotAllowed(let allowed):
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            if head.method == .OPTIONS {
                return try await answerEarly(HTTPResponse.empty(.noContent).withHeader("allow", allow))
            }
            return try await answerEarly(
                .problem(Problem(status: .methodNotAllowed, headers: ["allow": allow])))
        case .found(let route, let parameters):
            var request = HTTPRequest(
                method: head.method, path: path, query: query, headers: head.headers, pathParameters: parameters,
                requestID: requestID, remoteAddress: remoteAddress, routeTemplate: route.template,
                logger: context.logger)
            return try await serve(&request, route: route)
        }
    }

    private func serve(_ request: inout HTTPRequest, route: Route) async throws -> Disposition {
        let contentType = head.headers.first(name: "content-type")
        let streams = route.body.streams(contentType: contentType)
        let limit: Int? =
            switch route.body {
            case .streamed: route.bodyLimit
            case .jsonOrStreamed where streams: nil
            default: route.bodyLimit ?? context.configuration.maxBodyBytes
            }
        if hasBody && !route.body.accepts(contentType: contentType) {
            return try await answerEarly(
                .problem(
                    Problem(status: .unsupportedMediaType, detail: "This operation does not accept that Content-Type.")),
                route: route.template)
        }
        if let limit, let declaredLength, declaredLength > limit {
            return try await refuse(.tooLarge(limit), route: route.template)
        }
        if let expect = head.headers.first(name: "expect"), expect.lowercased() != "100-continue" {
            return try await answerEarly(.problem(Problem(status: .expectationFailed)), route: route.template)
        }
        if expectsContinue && hasBody {
            try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .continue)))
        }

        if streams {
            let source = RequestBodySource(reader: reader, limit: limit)
            request.bodyStream = RequestBodyStream(source: source)
            let response = await route.handler(request)
            switch source.detach() {
            case .complete:
                return try await answer(response, route: route.template, close: !keepAlive)
            case .unfinished:
                // The rest of the body is still coming; not worth reading, so close after answering.
                return try await answer(response, route: route.template, close: true)
            case .failed(let error):
                return try await refuse(error, route: route.template)
            }
        }

        var body = ByteBuffer()
        while true {
            switch await readPart() {
            case .body(var chunk):
                if let limit, body.readableBytes + chunk.readableBytes > limit {
                    return try await refuse(.tooLarge(limit), route: route.template)
                }
                body.writeBuffer(&chunk)
            case .end:
                request.body = body
                let response = await route.handler(request)
                return try await answer(response, route: route.template, close: !keepAlive)
            case .head, nil:
                return .abort
            case .failure(let error):
                return try await refuse(error, route: route.template)
            }
        }
    }

    private enum Part {
        case head
        case body(ByteBuffer)
        case end
        case failure(any Error)
    }

    private func readPart() async -> Part? {
        do {
            switch try await reader.next() {
            case .head: return .head
            case .body(let buffer): return .body(buffer)
            case .end: return .end
            case nil: return nil
            }
        } catch {
            return .failure(error)
        }
    }

    /// Answers before the handler would run (404, 405, 415, …). A small declared body is read
    /// and dropped afterwards to keep the connection. Otherwise the connection closes: with
    /// `Expect` the client may never send the body, and a chunked or large one is not worth reading.
    /// A 400 here (a target that is not a path, bad percent-encoding) closes too: like a framing
    /// error, it shows a client whose idea of HTTP differs from ours, so nothing pipelined after
    /// it is answered.
    private func answerEarly(_ response: HTTPResponse, route: String = AccessLog.unmatched) async throws
        -> Disposition
    {
        let worthDraining =
            !isChunked && !expectsContinue && (declaredLength ?? 0) <= context.configuration.maxBodyBytes
        let close = !keepAlive || (hasBody && !worthDraining) || response.status == .badRequest
        guard try await answer(response, route: route, close: close) == .keepAlive else { return .closeAfterResponse }
        while true {
            switch await readPart() {
            case .body:
                continue
            case .end:
                return .keepAlive
            case .head, .failure, nil:
                return .abort
            }
        }
    }

    /// Answers a request whose body broke a rule, then closes: the rest of the body is unread.
    private func refuse(_ error: any Error, route: String) async throws -> Disposition {
        let rejection: RequestRejection
        switch error {
        case RequestBodyError.tooLarge(let limit):
            rejection = .tooLarge(limit)
        case is RequestRejection, is HTTPParserError:
            rejection = .from(error)
        default:
            return .abort  // reset, cancelled, closed: nobody to answer
        }
        return try await refuse(rejection, route: route)
    }

    private func refuse(_ rejection: RequestRejection, route: String) async throws -> Disposition {
        let response = HTTPResponse.problem(Problem(status: rejection.status, detail: rejection.detail))
        return try await answer(response, route: route, close: true)
    }

    /// Writes `response` and logs it.
    private func answer(_ response: HTTPResponse, route: String, close: Bool) async throws -> Disposition {
        var close = close
        if case .stream = response.body, head.version != .http1_1, head.method != .HEAD {
            close = true  // no chunked in HTTP/1.0: the end of the body is the end of the connection
        }
        let isHeadRequest = head.method == .HEAD
        let responseHead = ResponseHead.make(
            response, version: head.version, isHeadRequest: isHeadRequest, requestID: requestID, close: close)
        let sendsBody = !isHeadRequest && ResponseHead.statusAllowsBody(response.status)
        // Logged even when the client is gone mid-write: the handler did run.
        defer {
            context.accessLog.record(
                method: head.method, route: route, response: response, requestID: requestID, since: start)
        }
        switch response.body {
        case .bytes(let buffer):
            var parts: [HTTPServerResponsePart] = [.head(responseHead)]
            if sendsBody && buffer.readableBytes > 0 { parts.append(.body(.byteBuffer(buffer))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
        case .stream(let stream):
            try await outbound.write(.head(responseHead))
            if sendsBody {
                // Each write waits for the channel to be writable: a slow reader slows the stream.
                for await chunk in stream where chunk.readableBytes > 0 {
                    try await outbound.write(.body(.byteBuffer(chunk)))
                }
            }
            try await outbound.write(.end(nil))
        }
        return close ? .closeAfterResponse : .keepAlive
    }
}

extension RequestRejection {
    static func tooLarge(_ limit: Int) -> Self {
        .init(status: .payloadTooLarge, detail: "The request body exceeds \(limit) bytes.")
    }
}
