import Metrics

/// `/metrics` for push jobs: what waits database-wide, what this instance has in flight, and
/// what it sent (a counter, so its rate is pushes per second). The database-wide gauges carry
/// `scope="database"`: every instance reports the same figure, so they are aggregated with
/// `max()`, never `sum()`.
enum PushJobMetrics {
    static let queued = Gauge(label: "push_jobs_queued", dimensions: [("scope", "database")])
    static let oldestQueuedSeconds = Gauge(
        label: "push_jobs_oldest_queued_seconds", dimensions: [("scope", "database")])
    static let inFlight = Gauge(label: "push_jobs_in_flight")

    static func recorded(_ status: String) {
        Counter(label: "push_job_pushes_total", dimensions: [("status", status)]).increment()
    }
}
