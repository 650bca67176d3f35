import Postgres
import Synchronization
import Testing

@testable import Store

@Suite("Batch queue")
struct BatchQueueTests {
    @Test func requestsQueuedPastMaxWaitBehindAStuckBatchFailWithoutRunning() async throws {
        let performed = PerformedBatches()
        let queue = BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .milliseconds(100), recordBatchSize: { _ in },
            perform: { items in
                performed.record(items)
                if items.contains(0) { try await Task.sleep(for: .milliseconds(400)) }
                return items.map { .success($0 * 2) }
            })
        let stuck = Task { try await queue.submit(0) }
        try await Task.sleep(for: .milliseconds(50))
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        #expect(try await stuck.value == 0)
        for task in queued {
            await #expect(throws: PostgresError.poolTimeout) { try await task.value }
        }
        #expect(try await queue.submit(3) == 6, "a request after the stuck batch runs as usual")
        #expect(performed.all == [[0], [3]], "the expired requests never reached perform")
    }

    @Test func aShortAnswerFromPerformFailsEveryItemInsteadOfLeavingOneWaiting() async throws {
        let queue = BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .seconds(5), recordBatchSize: { _ in },
            perform: { items in
                try await Task.sleep(for: .milliseconds(100))
                return items.dropLast().map { .success($0) }
            })
        let first = Task { try await queue.submit(0) }
        try await Task.sleep(for: .milliseconds(20))
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        for task in [first] + queued {
            await #expect(throws: BatchQueueError.self) { try await task.value }
        }
    }
}

/// The batches a fake `perform` saw, in order.
final class PerformedBatches: Sendable {
    private let batches = Mutex<[[Int]]>([])
    func record(_ batch: [Int]) { batches.withLock { $0.append(batch) } }
    var all: [[Int]] { batches.withLock { $0 } }
}
