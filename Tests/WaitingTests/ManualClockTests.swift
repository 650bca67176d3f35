import Testing

@testable import Waiting

@Suite(.timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test func aSleeperWakesWhenTimeReachesItsDeadline() async throws {
        let clock = ManualClock()
        let start = clock.now
        let sleeper = Task { try await clock.sleep(until: start + .seconds(2)) }
        try await until("asleep") { clock.sleepers == 1 }
        clock.advance(by: .seconds(1))
        #expect(clock.sleepers == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.now == start + .seconds(2))
    }

    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: clock.now)
        #expect(clock.sleepers == 0)
    }

    @Test func cancellingASleeperWakesItWithCancellationError() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now + .seconds(1)) }
        try await until("asleep") { clock.sleepers == 1 }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: clock.now + .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(clock.sleepers == 0)
    }

    @Test func timeNeverGoesBack() {
        let clock = ManualClock()
        let start = clock.now
        clock.advance(to: start - .seconds(1))
        #expect(clock.now == start)
    }
}
