import NIOConcurrencyHelpers
import Postgres
import Testing

@testable import Store

@Suite("Batch queue")
struct BatchQueueTests {
    @Test func requestsQueuedPastMaxWaitFailWhileTheBatchAheadIsStillStuck() async throws {
        let performed = PerformedBatches()
        let release = Release()
        let queue = BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .milliseconds(100), maxLength: 100, recordBatchSize: { _ in },
            perform: { items in
                performed.record(items)
                if items.contains(0) { await release.wait(atMost: .seconds(5)) }
                return items.map { .success($0 * 2) }
            })
        let stuck = Task { try await queue.submit(0) }
        try await Task.sleep(for: .milliseconds(50))
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        for task in queued {
            await #expect(throws: PostgresError.poolTimeout) { try await task.value }
        }
        #expect(!release.happened, "the queued requests failed at their deadline, not when the runner came back")
        release.now()
        #expect(try await stuck.value == 0)
        #expect(try await queue.submit(3) == 6, "a request after the stuck batch runs as usual")
        #expect(performed.all == [[0], [3]], "the expired requests never reached perform")
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let release = Release()
        let queue = BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .seconds(5), maxLength: 2, recordBatchSize: { _ in },
            perform: { items in
                if items.contains(0) { await release.wait(atMost: .seconds(5)) }
                return items.map { .success($0) }
            })
        let stuck = Task { try await queue.submit(0) }
        try await Task.sleep(for: .milliseconds(50))
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: PostgresError.queueFull) { try await queue.submit(3) }
        #expect(!release.happened)
        release.now()
        #expect(try await stuck.value == 0)
        for (item, task) in zip([1, 2], queued) { #expect(try await task.value == item) }
    }

    @Test func aShortAnswerFromPerformFailsEveryItemInsteadOfLeavingOneWaiting() async throws {
        let queue = BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .seconds(5), maxLength: 100, recordBatchSize: { _ in },
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
    private let batches = NIOLockedValueBox<[[Int]]>([])
    func record(_ batch: [Int]) { batches.withLockedValue { $0.append(batch) } }
    var all: [[Int]] { batches.withLockedValue { $0 } }
}

/// Holds a fake batch until the test lets it go (or a safety limit passes, so that a broken
/// queue fails the test instead of hanging it).
final class Release: Sendable {
    private let released = NIOLockedValueBox(false)

    var happened: Bool { released.withLockedValue { $0 } }

    func now() { released.withLockedValue { $0 = true } }

    func wait(atMost limit: Duration) async {
        let end = ContinuousClock.now + limit
        while !happened, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(5)) }
        now()
    }
}
