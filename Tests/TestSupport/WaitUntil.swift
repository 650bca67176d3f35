extension TestSupport {
    /// Waits until `condition` holds, looking again every `interval`; throws naming `what` when
    /// `limit` passes first. The one way tests wait for something another task, process or the
    /// database does: the order comes from the condition, never from how long a sleep lasted.
    public static func waitUntil(
        _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(5),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestSupportError("\(what): not within \(limit)") }
            try await Task.sleep(for: interval)
        }
    }
}
