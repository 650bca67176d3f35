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
}
