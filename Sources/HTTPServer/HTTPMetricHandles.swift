import Metrics
import NIOConcurrencyHelpers

/// The HTTP metrics' handles, made once per route, method and status and reused. Making a handle
/// per request cost more than recording into it: the backend validates and hashes the labels
/// under its one registry-wide lock, and swift-metrics allocates a handle object each time.
///
/// Handles are made from `factory`, or from `MetricsSystem.factory` as it is when a route is
/// first answered (the server is built before `serve` bootstraps the metrics system).
final class HTTPMetricHandles: Sendable {
    struct Handles: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
    }

    private struct Key: Hashable {
        let route: String
        let method: String
        let status: UInt
    }

    private let factory: (any MetricsFactory)?
    private let handles = NIOLockedValueBox<[Key: Handles]>([:])

    init(factory: (any MetricsFactory)?) {
        self.factory = factory
    }

    /// `route` is a template or `AccessLog.unmatched`, so the set stays as small as the routes.
    func handles(route: String, method: String, status: UInt) -> Handles {
        let key = Key(route: route, method: method, status: status)
        if let known = handles.withLockedValue({ $0[key] }) { return known }
        let factory = self.factory ?? MetricsSystem.factory
        let made = Handles(
            requests: Counter(
                label: "http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
            duration: Metrics.Timer(
                label: "http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                factory: factory))
        return handles.withLockedValue { known in
            if let first = known[key] { return first }
            known[key] = made
            return made
        }
    }
}
