import NIOConcurrencyHelpers
import Postgres
import TestSupport
import Testing
import Waiting

@testable import Store

/// The batch queue, driven by a manual clock: the fake `perform` is held by a gate the test opens,
/// and the order of events is set by waiting for conditions, never by sleeping.
@Suite("Batch queue", .timeLimit(.minutes(1)))
struct BatchQueueTests {
    let clock = ManualClock()

    /// A queue whose `perform` doubles each item, holding any batch with item 0 until `gate` opens.
    func queue(
        maxWait: Duration = .seconds(5), maxLength: Int = 100, performed: PerformedBatches, gate: PerformGate,
        answer: @escaping @Sendable ([Int]) -> [Result<Int, any Error>] = { $0.map { .success($0 * 2) } }
    ) -> BatchQueue<Int, Int> {
        BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: maxWait, maxLength: maxLength, clock: clock,
            recordBatchSize: { _ in },
            perform: { items in
                performed.record(items)
                if items.contains(0) { await gate.wait() }
                return answer(items)
            })
    }

    @Test func requestsQueuedPastMaxWaitFailWhileTheBatchAheadIsStillStuck() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = queue(maxWait: .milliseconds(100), performed: performed, gate: gate)
        let stuck = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the runner holds item 0") { performed.all == [[0]] }
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        try await TestSupport.waitUntil("two queued, deadlines watched") { queue.waiting == 2 && clock.sleepers == 1 }
        clock.advance(by: .milliseconds(100))
        for task in queued {
            await #expect(throws: PostgresError.poolTimeout) { try await task.value }
        }
        #expect(!gate.isOpen, "the queued requests failed at their deadline, not when the runner came back")
        gate.open()
        #expect(try await stuck.value == 0)
        #expect(try await queue.submit(3) == 6, "a request after the stuck batch runs as usual")
        #expect(performed.all == [[0], [3]], "the expired requests never reached perform")
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = queue(maxLength: 2, performed: performed, gate: gate)
        let stuck = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the runner holds item 0") { performed.all == [[0]] }
        let queued = try await submitInOrder([1, 2], to: queue)
        await #expect(throws: PostgresError.queueFull) { try await queue.submit(3) }
        #expect(!gate.isOpen)
        gate.open()
        #expect(try await stuck.value == 0)
        for (item, task) in zip([1, 2], queued) { #expect(try await task.value == item * 2) }
        #expect(performed.all == [[0], [1, 2]], "the waiting requests went as one batch")
    }

    @Test func aCallerWithoutATaskGetsItsOutcomeThroughItsCompletion() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = queue(maxLength: 2, performed: performed, gate: gate)
        let stuck = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the runner holds item 0") { performed.all == [[0]] }
        let outcomes = NIOLockedValueBox<[Int: Result<Int, any Error>]>([:])
        for item in [1, 2, 3] {
            queue.submit(item) { outcome in outcomes.withLockedValue { $0[item] = outcome } }
        }
        let refused = outcomes.withLockedValue { $0 }
        #expect(refused.keys.sorted() == [3], "a refusal is answered before submit returns")
        #expect(throws: PostgresError.queueFull) { try refused[3]?.get() }
        gate.open()
        #expect(try await stuck.value == 0)
        try await TestSupport.waitUntil("both queued items answered") { outcomes.withLockedValue { $0.count } == 3 }
        let answered = outcomes.withLockedValue { $0 }
        #expect(try answered[1]?.get() == 2)
        #expect(try answered[2]?.get() == 4)
        #expect(performed.all == [[0], [1, 2]])
    }

    @Test func aShortAnswerFromPerformFailsEveryItemInsteadOfLeavingOneWaiting() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = queue(performed: performed, gate: gate) { items in items.dropLast().map { .success($0) } }
        let first = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the runner holds item 0") { performed.all == [[0]] }
        let queued = [1, 2].map { item in Task { try await queue.submit(item) } }
        try await TestSupport.waitUntil("two queued") { queue.waiting == 2 }
        gate.open()
        for task in [first] + queued {
            await #expect(throws: BatchQueueError.self) { try await task.value }
        }
    }

    /// A queue run by one session runner that answers each batch with its items doubled, holding
    /// a batch holding item 0 until `gate` opens; `answers` says which batches it answers at all.
    func sessionQueue(
        performed: PerformedBatches, gate: PerformGate, metrics: BatchMetrics = BatchMetrics(size: { _ in }),
        answers: @escaping @Sendable ([Int]) -> Bool = { _ in true }
    ) -> BatchQueue<Int, Int> {
        BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .seconds(5), maxLength: 100, clock: clock, metrics: metrics
        ) { session in
            var batch: Batch<Int, Int>? = session.first
            while let current = batch {
                performed.record(current.items)
                if current.items.contains(0) { await gate.wait() }
                // The next batch is taken before this one is answered, as the group commit does.
                batch = session.next()
                if answers(current.items) { current.answer(current.items.map { .success($0 * 2) }) }
            }
        }
    }

    /// Submits `items` one after the other, each queued before the next is submitted: two tasks
    /// started together may reach the queue in either order, and the tests read the batches'.
    func submitInOrder(_ items: [Int], to queue: BatchQueue<Int, Int>) async throws -> [Task<Int, any Error>] {
        var tasks: [Task<Int, any Error>] = []
        for item in items {
            let waiting = queue.waiting
            tasks.append(Task { try await queue.submit(item) })
            try await TestSupport.waitUntil("\(item) queued") { queue.waiting == waiting + 1 }
        }
        return tasks
    }

    @Test func aSessionTakesTheRequestsThatWaitedWhileItRanTheBatchBefore() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = sessionQueue(performed: performed, gate: gate)
        let first = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the session holds item 0") { performed.all == [[0]] }
        let queued = try await submitInOrder([1, 2], to: queue)
        gate.open()
        #expect(try await first.value == 0)
        for (item, task) in zip([1, 2], queued) { #expect(try await task.value == item * 2) }
        #expect(performed.all == [[0], [1, 2]], "the waiting requests went as one batch, after item 0's")
        #expect(try await queue.submit(3) == 6, "a request after the session ended starts another")
    }

    @Test func aBatchASessionLeavesUnansweredFailsInsteadOfWaitingForever() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let queue = sessionQueue(performed: performed, gate: gate, answers: { !$0.contains(1) })
        gate.open()
        await #expect(throws: BatchQueueError.unanswered) { try await queue.submit(1) }
        #expect(try await queue.submit(2) == 4)
    }

    @Test func eachBatchRecordsItsSizeAndHowLongItsRequestsWaited() async throws {
        let (performed, gate) = (PerformedBatches(), PerformGate())
        let recorded = NIOLockedValueBox<[(size: Int, queued: Duration)]>([])
        let metrics = BatchMetrics(
            size: { size in recorded.withLockedValue { $0.append((size, .zero)) } },
            queued: { queued in recorded.withLockedValue { $0[$0.count - 1].queued = queued } })
        let queue = sessionQueue(performed: performed, gate: gate, metrics: metrics)
        let first = Task { try await queue.submit(0) }
        try await TestSupport.waitUntil("the session holds item 0") { performed.all == [[0]] }
        let second = Task { try await queue.submit(1) }
        try await TestSupport.waitUntil("item 1 queued") { queue.waiting == 1 }
        clock.advance(by: .milliseconds(10))
        let third = Task { try await queue.submit(2) }
        try await TestSupport.waitUntil("item 2 queued") { queue.waiting == 2 }
        clock.advance(by: .milliseconds(30))
        gate.open()
        _ = try await (first.value, second.value, third.value)
        let batches = recorded.withLockedValue { $0 }
        #expect(batches.map(\.size) == [1, 2])
        #expect(batches.map(\.queued) == [.zero, .milliseconds(70)], "40 ms for item 1, 30 for item 2")
    }
}

/// The batches a fake `perform` saw, in order.
final class PerformedBatches: Sendable {
    private let batches = NIOLockedValueBox<[[Int]]>([])
    func record(_ batch: [Int]) { batches.withLockedValue { $0.append(batch) } }
    var all: [[Int]] { batches.withLockedValue { $0 } }
}

/// Holds fake batches until the test opens it.
final class PerformGate: Sendable {
    private let state = NIOLockedValueBox((isOpen: false, waiting: [CheckedContinuation<Void, Never>]()))

    var isOpen: Bool { state.withLockedValue { $0.isOpen } }

    func open() {
        let waiting = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLockedValue { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
