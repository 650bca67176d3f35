import Foundation
import Testing

@testable import PushRules

@Suite struct RetryRulesTests {
    static let policy = RetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(2), maximumAttempts: 6)

    struct Case: Sendable {
        let attempt: Int
        let jitter: Double
        let retryAfter: Duration?
        let remaining: Duration
        let expected: Duration?
    }

    static let cases: [Case] = [
        // Equal jitter: half the step, plus up to the other half.
        Case(attempt: 1, jitter: 0, retryAfter: nil, remaining: .seconds(30), expected: .milliseconds(100)),
        Case(attempt: 1, jitter: 0.5, retryAfter: nil, remaining: .seconds(30), expected: .milliseconds(150)),
        Case(attempt: 2, jitter: 0, retryAfter: nil, remaining: .seconds(30), expected: .milliseconds(200)),
        Case(attempt: 3, jitter: 0.5, retryAfter: nil, remaining: .seconds(30), expected: .milliseconds(600)),
        // Capped at the maximum step.
        Case(attempt: 5, jitter: 0, retryAfter: nil, remaining: .seconds(30), expected: .seconds(1)),
        // Retry-After longer than the step wins; shorter does not shorten it.
        Case(attempt: 1, jitter: 0, retryAfter: .seconds(3), remaining: .seconds(30), expected: .seconds(3)),
        Case(
            attempt: 3, jitter: 0, retryAfter: .milliseconds(10), remaining: .seconds(30), expected: .milliseconds(400)),
        // Never past the deadline: a wait ending at or after it gives up.
        Case(attempt: 1, jitter: 0, retryAfter: .seconds(39), remaining: .seconds(30), expected: nil),
        Case(attempt: 1, jitter: 0, retryAfter: nil, remaining: .milliseconds(100), expected: nil),
        Case(attempt: 1, jitter: 0, retryAfter: nil, remaining: .milliseconds(101), expected: .milliseconds(100)),
        // Attempts are bounded too.
        Case(attempt: 6, jitter: 0, retryAfter: nil, remaining: .seconds(300), expected: nil),
    ]

    @Test(arguments: cases)
    func delays(testCase: Case) {
        let delay = Self.policy.delay(
            afterAttempt: testCase.attempt, retryAfter: testCase.retryAfter, remaining: testCase.remaining,
            jitter: testCase.jitter)
        #expect(delay == testCase.expected)
    }

    @Test func jitterStaysInTheUpperHalfOfTheStep() {
        for attempt in 1...5 {
            let low = Self.policy.delay(afterAttempt: attempt, retryAfter: nil, remaining: .seconds(60), jitter: 0)!
            let high = Self.policy.delay(
                afterAttempt: attempt, retryAfter: nil, remaining: .seconds(60), jitter: 0.999)!
            #expect(high > low && high < low * 2)
        }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // Fri, 15 Jan 2027 08:00:00 GMT

    @Test(arguments: [
        ("120", Duration.seconds(120)), (" 0 ", .zero), ("Fri, 15 Jan 2027 08:00:30 GMT", .seconds(30)),
        ("Fri, 15 Jan 2027 07:00:00 GMT", .zero),
    ])
    func retryAfterReadsSecondsAndHTTPDates(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(arguments: ["", "-1", "1.5", "soon", "Fri, 15 Jan 2027 08:00:30 UTC", "Fri, 32 Jan 2027 08:00:30 GMT"])
    func retryAfterRefusesAnythingElse(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }
}
