import Metrics

/// The pool's swift-metrics instruments; no-ops unless the process bootstraps a backend.
struct PoolMetrics: Sendable {
    let inUse = Gauge(label: "db_pool_connections", dimensions: [("state", "in_use")])
    let idle = Gauge(label: "db_pool_connections", dimensions: [("state", "idle")])
    let size = Gauge(label: "db_pool_connections", dimensions: [("state", "size")])
    let waiting = Gauge(label: "db_pool_waiting")
    let queryDuration = Metrics.Timer(label: "db_query_duration_seconds")
    /// Failed connects and connections lost or found dead.
    let connectionErrors = Counter(label: "db_connection_errors_total")

    func record(_ statistics: PoolStatistics) {
        inUse.record(statistics.inUse)
        idle.record(statistics.idle)
        size.record(statistics.size)
        waiting.record(statistics.waiting)
    }
}
