import NIOConcurrencyHelpers

/// A clock for tests: time stands still until the test calls `advance`, which wakes every sleeper
/// whose deadline it reaches. A sleep until a deadline already reached returns at once, so a test
/// may advance before or after the sleeper lies down.
public final class ManualClock: WaitClock {
    private struct Sleeper {
        let deadline: ContinuousClock.Instant
        let continuation: UnsafeContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        /// Ids handed out but not yet registered as sleepers; true once cancelled.
        var announced: [UInt64: Bool] = [:]
    }

    private let state: NIOLockedValueBox<State>

    public init(now: ContinuousClock.Instant = .now) {
        state = NIOLockedValueBox(State(now: now))
    }

    public var now: ContinuousClock.Instant { state.withLockedValue { $0.now } }

    /// How many sleeps are pending: a test waits for the deadline watcher to lie down this way.
    public var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// The earliest deadline a sleeper waits for.
    public var nextWakeUp: ContinuousClock.Instant? {
        state.withLockedValue { $0.sleepers.values.map(\.deadline).min() }
    }

    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves time forward (never back) and wakes the sleepers whose deadline it reached.
    public func advance(to instant: ContinuousClock.Instant) {
        let woken = state.withLockedValue { state -> [Sleeper] in
            state.now = max(state.now, instant)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            state.announced[state.nextID] = false
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let answer = state.withLockedValue { state -> Result<Void, any Error>? in
                    if state.announced.removeValue(forKey: id) == true { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { state -> Sleeper? in
                if state.announced[id] != nil {
                    state.announced[id] = true
                    return nil
                }
                return state.sleepers.removeValue(forKey: id)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
