import Metrics
import Postgres

/// What a `BatchQueue` records per batch: its size, how long its requests waited in the queue
/// (summed over them), and how long the runner took from taking the batch to answering it. Per
/// batch, not per request, so the cost stays small when batches are large.
struct BatchMetrics: Sendable {
    let size: @Sendable (Int) -> Void
    let queued: @Sendable (Duration) -> Void
    let duration: @Sendable (Duration) -> Void

    init(
        size: @escaping @Sendable (Int) -> Void, queued: @escaping @Sendable (Duration) -> Void = { _ in },
        duration: @escaping @Sendable (Duration) -> Void = { _ in }
    ) {
        self.size = size
        self.queued = queued
        self.duration = duration
    }

    /// `<prefix>_batch_size`, `<prefix>_queued_seconds_total` (the requests' waits summed: divided
    /// by the requests batched, the mean wait) and `<prefix>_batch_seconds`.
    static func named(_ prefix: String) -> BatchMetrics {
        let size = Recorder(label: "\(prefix)_batch_size")
        let queued = FloatingPointCounter(label: "\(prefix)_queued_seconds_total")
        let duration = Metrics.Timer(label: "\(prefix)_batch_seconds")
        return BatchMetrics(
            size: { size.record($0) }, queued: { queued.increment(by: Double($0.nanoseconds) / 1e9) },
            duration: { duration.recordNanoseconds($0.nanoseconds) })
    }
}
