/// Who runs the tasks a sender starts beyond one push — its credential renewals (an APNs
/// provider token, an FCM access token), which run ahead of the pushes that need them — so that
/// their owner, the push engine, can wait for them at shutdown instead of leaving them running.
public protocol BackgroundTasks: Sendable {
    /// Runs `work` in a task of its own, tracked until it ends.
    func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error>
}

/// Tasks nobody waits for, for a sender made outside the engine (tests, the mock's tools): each
/// ends by its own timeout, as every renewal does.
public struct UnownedTasks: BackgroundTasks {
    public init() {}

    public func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        Task { try await work() }
    }
}
