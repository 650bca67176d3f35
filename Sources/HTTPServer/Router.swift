import Encodings
import NIOHTTP1

/// Turns a request into the code that answers it.
public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

/// Answers a request without a task of its own, for the hottest routes, whose work is one
/// callback away (a group-commit batch): a task per request, its continuation and its executor
/// hops cost more than such a handler's own work. It runs on the connection's event loop, must
/// not block, and calls its ``Responder`` exactly once, from any thread.
public typealias ImmediateHandler = @Sendable (HTTPRequest, Responder) -> Void

/// How a route answers: in a task on the connection's event loop, or at once (see above).
public enum RouteHandler: Sendable {
    case task(Handler)
    case immediate(ImmediateHandler)
}

/// One registered operation. A class: a request carries its route from routing to the answer
/// (plan, body collection, the handler's task), and a copy of a struct of strings, an enum and a
/// closure retained each of them every time.
public final class Route: Sendable {
    public let method: HTTPMethod
    public let body: RouteBody
    /// Overrides ``HTTPServerConfiguration/maxBodyBytes``; on a `.streamed` route nil means unlimited.
    public let bodyLimit: Int?
    public let handler: RouteHandler
    let path: PathTemplate

    public var template: String { path.text }

    init(method: HTTPMethod, body: RouteBody, bodyLimit: Int?, handler: RouteHandler, path: PathTemplate) {
        self.method = method
        self.body = body
        self.bodyLimit = bodyLimit
        self.handler = handler
        self.path = path
    }
}

public enum RouteMatch: Sendable {
    case found(Route, parameters: [String: String])
    /// The path exists but not for this method; `allowed` feeds the `Allow` header.
    case methodNotAllowed(allowed: [HTTPMethod])
    case notFound
}

/// Method + path template → handler.
///
/// Matching: the path is split on `/` first and each segment percent-decoded afterwards, so
/// `%2F` stays inside its segment. Among templates that fit, literals beat parameters, and only
/// the most specific one answers: `/v1/devices/export` is a resource of its own, so
/// `DELETE /v1/devices/export` is a 405 listing that path's methods, never a delete of a token
/// named "export" through `/v1/devices/{token}`. `HEAD` uses the `GET` route when no `HEAD`
/// route exists.
public struct Router: Sendable {
    private var routes: [Route] = []

    public init() {}

    public mutating func add(
        _ method: HTTPMethod, _ template: String, body: RouteBody = .none, bodyLimit: Int? = nil,
        handler: @escaping Handler
    ) {
        add(method, template, body: body, bodyLimit: bodyLimit, answering: .task(handler))
    }

    /// A route answered by an ``ImmediateHandler``; its response must have a `.bytes` body.
    public mutating func add(
        _ method: HTTPMethod, _ template: String, body: RouteBody = .none, bodyLimit: Int? = nil,
        immediately handler: @escaping ImmediateHandler
    ) {
        add(method, template, body: body, bodyLimit: bodyLimit, answering: .immediate(handler))
    }

    private mutating func add(
        _ method: HTTPMethod, _ template: String, body: RouteBody, bodyLimit: Int?, answering handler: RouteHandler
    ) {
        let path = PathTemplate(template)
        precondition(
            !routes.contains { $0.method == method && $0.path == path }, "route registered twice: \(method) \(template)"
        )
        routes.append(Route(method: method, body: body, bodyLimit: bodyLimit, handler: handler, path: path))
    }

    /// The same routes, each answered by what `wrap` makes of it (a gate in front of its handler).
    public func wrappingHandlers(_ wrap: (Route) -> RouteHandler) -> Router {
        var wrapped = self
        wrapped.routes = routes.map {
            Route(method: $0.method, body: $0.body, bodyLimit: $0.bodyLimit, handler: wrap($0), path: $0.path)
        }
        return wrapped
    }

    /// Every registered (method, template), in registration order.
    public var operations: [(method: HTTPMethod, template: String)] {
        routes.map { ($0.method, $0.template) }
    }

    /// Matches a raw path (no query). A path with an invalid percent-encoding matches nothing;
    /// the server checks encodings first and answers those with 400.
    public func match(method: HTTPMethod, path: String) -> RouteMatch {
        guard let segments = Router.decodeSegments(path) else { return .notFound }
        return match(method: method, segments: segments)
    }

    func match(method: HTTPMethod, segments: [String]) -> RouteMatch {
        // The most specific template that fits: the first registered one no other fitting one
        // beats. Specificity is only compared among templates that fit the same path: those have
        // the same number of segments, so "literal beats parameter at the first difference"
        // orders them consistently (templates of different shapes are not comparable). No
        // parameters are decoded until a route answers: this runs for every request.
        var mostSpecific: PathTemplate?
        for route in routes where route.path.fits(segments) {
            if let best = mostSpecific, !route.path.isMoreSpecific(than: best) { continue }
            mostSpecific = route.path
        }
        guard let shape = mostSpecific?.segments else { return .notFound }
        // The routes of that template, in registration order (they all fit: fitting depends on
        // the segments alone).
        let candidates = routes.lazy.filter { $0.path.segments == shape }
        let hit =
            candidates.first { $0.method == method }
            ?? (method == .HEAD ? candidates.first { $0.method == .GET } : nil)
        if let hit {
            return .found(hit, parameters: hit.path.parameters(segments))
        }
        var allowed: [HTTPMethod] = []
        for route in candidates where !allowed.contains(route.method) {
            allowed.append(route.method)
        }
        if allowed.contains(.GET) && !allowed.contains(.HEAD) {
            allowed.append(.HEAD)
        }
        return .methodNotAllowed(allowed: allowed)
    }

    /// Splits, then percent-decodes each segment; nil when an encoding is invalid.
    static func decodeSegments(_ path: String) -> [String]? {
        var decoded: [String] = []
        // Split in place (no array of pieces), into one array sized for every route's path.
        decoded.reserveCapacity(8)
        var rest = path.dropFirst()
        if rest.isEmpty { return decoded }
        while true {
            let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/"))
            guard let value = PercentDecoding.decode(rest[..<(slash ?? rest.endIndex)], plusIsSpace: false) else {
                return nil
            }
            decoded.append(value)
            guard let slash else { return decoded }
            rest = rest[rest.utf8.index(after: slash)...]
        }
    }
}
