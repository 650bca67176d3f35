import Synchronization

/// How many call events this instance is ringing now (from the claim to the answer), for the push
/// job's lanes to give way while any is (`JobLanes`): with the job keeping both cores busy, a
/// ring's PostgreSQL backend and its threads waited for a core behind the job's work.
final class RingsInFlight: Sendable {
    private let count = Atomic<Int>(0)

    var any: Bool { count.load(ordering: .relaxed) > 0 }

    /// `body`'s value, counted in flight while it runs.
    func during<T>(_ body: () async throws -> T) async rethrows -> T {
        count.add(1, ordering: .relaxed)
        defer { count.subtract(1, ordering: .relaxed) }
        return try await body()
    }
}
