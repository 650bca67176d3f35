import Testing

@testable import API

@Suite("BadKeyLimiter")
struct BadKeyLimiterTests {
    @Test func oneAddressGuessingDoesNotSlowAnotherAndTheWindowEnds() {
        let limiter = BadKeyLimiter(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        for _ in 0..<3 { limiter.recordFailure(client: "10.0.0.1", now: start) }
        #expect(limiter.retryAfter(client: "10.0.0.1", now: start + .seconds(1)) == 59)
        #expect(limiter.retryAfter(client: "10.0.0.2", now: start + .seconds(1)) == nil)
        #expect(limiter.retryAfter(client: "10.0.0.1", now: start + .seconds(61)) == nil)
    }

    @Test func fewerFailuresThanTheLimitAreNotSlowedDown() {
        let limiter = BadKeyLimiter(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        limiter.recordFailure(client: "a", now: start)
        limiter.recordFailure(client: "a", now: start)
        #expect(limiter.retryAfter(client: "a", now: start) == nil)
    }

    @Test func trackedAddressesAreBounded() {
        let limiter = BadKeyLimiter(limit: 1, window: .seconds(60), maxTrackedClients: 100)
        let start = ContinuousClock.now
        for n in 0..<1_000 { limiter.recordFailure(client: "client-\(n)", now: start + .milliseconds(n)) }
        #expect(limiter.retryAfter(client: "client-999", now: start + .seconds(2)) != nil)
        #expect(limiter.retryAfter(client: "client-0", now: start + .seconds(2)) == nil)  // dropped to make room
    }

    @Test func aFullTableDropsExpiredWindowsBeforeLiveOnes() {
        let limiter = BadKeyLimiter(limit: 1, window: .seconds(60), maxTrackedClients: 3)
        let start = ContinuousClock.now
        limiter.recordFailure(client: "old", now: start)
        limiter.recordFailure(client: "a", now: start + .seconds(30))
        limiter.recordFailure(client: "b", now: start + .seconds(31))
        // "old" has expired: it makes room, and neither live window is dropped.
        limiter.recordFailure(client: "c", now: start + .seconds(61))
        for client in ["a", "b", "c"] {
            #expect(limiter.retryAfter(client: client, now: start + .seconds(62)) != nil, "\(client)")
        }
        // Full of live windows: the one that started first goes.
        limiter.recordFailure(client: "d", now: start + .seconds(63))
        #expect(limiter.retryAfter(client: "a", now: start + .seconds(64)) == nil)
        #expect(limiter.retryAfter(client: "b", now: start + .seconds(64)) != nil)
    }

    @Test func aClientWhoseWindowEndedStartsAFreshOne() {
        let limiter = BadKeyLimiter(limit: 2, window: .seconds(60), maxTrackedClients: 2)
        let start = ContinuousClock.now
        limiter.recordFailure(client: "a", now: start)
        limiter.recordFailure(client: "a", now: start + .seconds(61))
        #expect(limiter.retryAfter(client: "a", now: start + .seconds(62)) == nil, "one failure in the new window")
        limiter.recordFailure(client: "b", now: start + .seconds(62))
        limiter.recordFailure(client: "a", now: start + .seconds(63))
        #expect(limiter.retryAfter(client: "a", now: start + .seconds(64)) == 57)
        #expect(limiter.retryAfter(client: "b", now: start + .seconds(64)) == nil)
    }
}
