import Metrics

/// `/metrics` for push jobs: what waits database-wide, what this instance has in flight, and
/// what it sent (a counter, so its rate is pushes per second).
enum PushJobMetrics {
    static let queued = Gauge(label: "push_jobs_queued")
    static let oldestQueuedSeconds = Gauge(label: "push_jobs_oldest_queued_seconds")
    static let inFlight = Gauge(label: "push_jobs_in_flight")

    static func recorded(_ status: String) {
        Counter(label: "push_job_pushes_total", dimensions: [("status", status)]).increment()
    }
}
