import Metrics
import Store

/// `/metrics` for push jobs: what waits database-wide, what this instance has in flight, and
/// what it sent (a counter, so its rate is pushes per second). The database-wide gauges carry
/// `scope="database"`: every instance reports the same figure, so they are aggregated with
/// `max()`, never `sum()`.
enum PushJobMetrics {
    static let queued = Gauge(label: "push_jobs_queued", dimensions: [("scope", "database")])
    static let oldestQueuedSeconds = Gauge(
        label: "push_jobs_oldest_queued_seconds", dimensions: [("scope", "database")])
    static let inFlight = Gauge(label: "push_jobs_in_flight")

    /// Counts a claim's outcomes, one increment per status: making a counter resolves its labels
    /// under the metrics backend's lock, too dear to do for every push.
    static func recorded(_ outcomes: [PushResultRecord]) {
        var byStatus: [String: Int] = [:]
        for outcome in outcomes { byStatus[outcome.status, default: 0] += 1 }
        for (status, count) in byStatus {
            Counter(label: "push_job_pushes_total", dimensions: [("status", status)]).increment(by: count)
        }
    }
}
