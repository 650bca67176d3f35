import Dispatch
import NIOConcurrencyHelpers
import Testing

@testable import Store

/// Where a batch queue's runner runs: a `perform` runner on the executor of the task that
/// started it (a request handler's event loop), a session runner on the global executor.
@Suite("Batch runner's executor", .timeLimit(.minutes(1)))
struct BatchRunnerExecutorTests {
    /// Runs its jobs on a queue of its own, counting them.
    final class CountingExecutor: TaskExecutor, @unchecked Sendable {
        private let queue = DispatchQueue(label: "counting-executor")
        let jobs = NIOLockedValueBox(0)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            jobs.withLockedValue { $0 += 1 }
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Whether the current task prefers `executor`.
    static func prefers(_ executor: CountingExecutor) -> Bool {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor == executor.asUnownedTaskExecutor() }
    }

    /// A queue whose batches double their items, noting for each batch whether it ran preferring
    /// `executor`.
    static func doublingQueue(noting ranThere: NIOLockedValueBox<[Bool]>, whetherItPrefers executor: CountingExecutor)
        -> BatchQueue<Int, Int>
    {
        BatchQueue<Int, Int>(
            maxBatch: 10, maxRunners: 1, maxWait: .seconds(5), maxLength: 100, recordBatchSize: { _ in },
            perform: { items in
                ranThere.withLockedValue { $0.append(Self.prefers(executor)) }
                return items.map { .success($0 * 2) }
            })
    }

    @Test func aPerformRunnerRunsOnTheSubmittingTasksExecutor() async throws {
        let executor = CountingExecutor()
        let ranThere = NIOLockedValueBox<[Bool]>([])
        let queue = Self.doublingQueue(noting: ranThere, whetherItPrefers: executor)
        let answer = try await Task(executorPreference: executor) { try await queue.submit(21) }.value
        #expect(answer == 42)
        #expect(ranThere.withLockedValue { $0 } == [true], "the batch ran preferring the submitter's executor")
    }

    @Test func aPerformRunnerStartedByATaskWithoutAPreferenceHasNone() async throws {
        let executor = CountingExecutor()
        let ranThere = NIOLockedValueBox<[Bool]>([])
        let queue = Self.doublingQueue(noting: ranThere, whetherItPrefers: executor)
        #expect(try await queue.submit(4) == 8)
        #expect(ranThere.withLockedValue { $0 } == [false])
        #expect(executor.jobs.withLockedValue { $0 } == 0)
    }
}
