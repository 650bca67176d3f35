import Encodings
import NIOHTTP1

/// Turns a request into the code that answers it.
public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

/// One registered operation.
public struct Route: Sendable {
    public let method: HTTPMethod
    public let body: RouteBody
    /// Overrides ``HTTPServerConfiguration/maxBodyBytes``; on a `.streamed` route nil means unlimited.
    public let bodyLimit: Int?
    public let handler: Handler
    let path: PathTemplate

    public var template: String { path.text }
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
        let path = PathTemplate(template)
        precondition(
            !routes.contains { $0.method == method && $0.path == path }, "route registered twice: \(method) \(template)"
        )
        routes.append(Route(method: method, body: body, bodyLimit: bodyLimit, handler: handler, path: path))
    }

    /// The same routes, each answered by what `wrap` makes of it (a gate in front of its handler).
    public func wrappingHandlers(_ wrap: (Route) -> Handler) -> Router {
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
        var fitting: [(route: Route, parameters: [String: String])] = []
        for route in routes {
            if let parameters = route.path.match(segments) {
                fitting.append((route, parameters))
            }
        }
        if fitting.isEmpty { return .notFound }
        // Specificity is only compared among templates that fit the same path: those have the
        // same number of segments, so "literal beats parameter at the first difference" orders
        // them consistently (templates of different shapes are not comparable).
        fitting.sort { $0.route.path.isMoreSpecific(than: $1.route.path) }
        let mostSpecific = fitting[0].route.path.segments
        fitting.removeAll { $0.route.path.segments != mostSpecific }
        if let hit = fitting.first(where: { $0.route.method == method }) {
            return .found(hit.route, parameters: hit.parameters)
        }
        if method == .HEAD, let hit = fitting.first(where: { $0.route.method == .GET }) {
            return .found(hit.route, parameters: hit.parameters)
        }
        var allowed: [HTTPMethod] = []
        for (route, _) in fitting where !allowed.contains(route.method) {
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
        for segment in PathTemplate.split(path) {
            guard let value = PercentDecoding.decode(segment, plusIsSpace: false) else { return nil }
            decoded.append(value)
        }
        return decoded
    }
}
