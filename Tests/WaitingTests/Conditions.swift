/// Waits until `condition` holds, yielding between looks (no sleep, so nothing is timed); fails
/// the test instead of hanging when it never does.
func until(
    _ what: String, within limit: Duration = .seconds(10), _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionNotMet(what: what) }
        await Task.yield()
    }
}

struct ConditionNotMet: Error {
    let what: String
}
