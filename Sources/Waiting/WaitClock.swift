/// The time a `WaiterQueue` judges deadlines by. Injected so that tests advance time by hand
/// (`ManualClock`) instead of sleeping; production code uses `SystemWaitClock`.
///
/// Instants are `ContinuousClock` instants whichever clock measures them, so callers keep passing
/// the deadlines they already compute.
public protocol WaitClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Returns once `now` has reached `deadline`; throws `CancellationError` when the task is
    /// cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

/// The real clock: `ContinuousClock`, which keeps counting while the machine sleeps.
public struct SystemWaitClock: WaitClock {
    public init() {}

    public var now: ContinuousClock.Instant { .now }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
