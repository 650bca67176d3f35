import Logging
import Metrics
import NIOHTTP1

/// One info line and the HTTP metrics per answered request.
///
/// Only the route template is logged or used as a metric dimension, never the path or query:
/// tokens live there, and templates keep metric cardinality bounded.
struct AccessLog: Sendable {
    static let unmatched = "unmatched"

    let logger: Logger
    let observer: (any RequestObserver)?
    private let metrics: HTTPMetricHandles

    /// `metricsFactory` nil: the process-wide `MetricsSystem.factory`, looked up when a route is
    /// first answered, so a backend bootstrapped after the server was created is still used.
    init(logger: Logger, observer: (any RequestObserver)?, metricsFactory: (any MetricsFactory)?) {
        self.logger = logger
        self.observer = observer
        self.metrics = HTTPMetricHandles(factory: metricsFactory)
    }

    /// - Parameter method: nil when the request could not even be parsed.
    func record(
        method: HTTPMethod?, route: String, response: HTTPResponse, requestID: String,
        since start: ContinuousClock.Instant
    ) {
        let duration = start.duration(to: .now)
        let methodName = method?.rawValue ?? "UNKNOWN"
        let status = response.status.code
        // The metadata costs more than the check: build it only when the line is written.
        if logger.logLevel <= .info {
            var metadata: Logger.Metadata = [
                "request_id": .string(requestID),
                "method": .string(methodName),
                "route": .string(route),
                "status": .stringConvertible(status),
                "duration_ms": .stringConvertible(Self.milliseconds(duration)),
            ]
            for (key, value) in response.logMetadata where metadata[key] == nil {
                metadata[key] = .string(value)
            }
            logger.info("request", metadata: metadata)
        }

        let handles = metrics.handles(route: route, method: methodName, status: status)
        handles.requests.increment()
        handles.duration.record(duration: duration)

        observer?.requestCompleted(
            CompletedRequest(
                method: method ?? .RAW(value: methodName), routeTemplate: route, status: response.status,
                duration: duration, requestID: requestID, logMetadata: response.logMetadata))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// To the microsecond; a number, which JSON logs write as one.
    static func milliseconds(_ duration: Duration) -> Double {
        Double(nanoseconds(duration) / 1000) / 1000
    }
}
