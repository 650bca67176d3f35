import NIOConcurrencyHelpers

/// The batches one `BatchQueue` session runner takes back to back while it keeps what they run on
/// (a connection). It starts with `first`; `next()` takes the requests waiting since. Every batch
/// taken is the runner's to answer; one it leaves unanswered when its session ends is failed then,
/// so that no request waits forever.
final class BatchSession<Item: Sendable, Outcome: Sendable>: Sendable {
    let first: Batch<Item, Outcome>
    private let take: @Sendable () -> Batch<Item, Outcome>?
    /// Taken and possibly unanswered: a session holds at most two (one in flight, one sent).
    private let open: NIOLockedValueBox<[Batch<Item, Outcome>]>

    init(first: Batch<Item, Outcome>, take: @escaping @Sendable () -> Batch<Item, Outcome>?) {
        self.first = first
        self.take = take
        open = NIOLockedValueBox([first])
    }

    /// The requests waiting now, up to the queue's batch size; nil when none waits.
    func next() -> Batch<Item, Outcome>? {
        guard let batch = take() else { return nil }
        open.withLockedValue { open in
            open.removeAll(where: \.isAnswered)
            open.append(batch)
        }
        return batch
    }

    /// Called by the queue when the session has returned.
    func failUnanswered(_ error: any Error = BatchQueueError.unanswered) {
        for batch in open.withLockedValue({ $0 }) { batch.fail(error) }
    }
}
