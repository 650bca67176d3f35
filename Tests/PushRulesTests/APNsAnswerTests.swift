import Foundation
import RegistryCore
import Testing

@testable import PushRules

@Suite struct APNsAnswerTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let invalidSince = Date(timeIntervalSince1970: 1_799_999_000.5)

    struct Case: Sendable, CustomTestStringConvertible {
        let answer: APNsAnswer
        let expected: PushOutcome
        var testDescription: String { "\(answer.status) \(answer.reason ?? "-")" }
    }

    static func verdict(_ reason: String, _ policy: FeedbackPolicy, _ at: Date = receivedAt) -> PushOutcome {
        .tokenInvalid(reason: reason, policy: policy, observedAt: at)
    }

    /// Apple's documented status and reason pairs ("Handling notification responses from APNs").
    static let cases: [Case] = [
        Case(answer: APNsAnswer(status: 200, apnsID: "a-b"), expected: .sent(serviceID: "a-b")),
        Case(
            answer: APNsAnswer(status: 410, reason: "Unregistered", timestamp: invalidSince),
            expected: verdict("Unregistered", .deleteIfNotSeenSince, invalidSince)),
        Case(
            answer: APNsAnswer(status: 410, reason: "ExpiredToken", timestamp: invalidSince),
            expected: verdict("ExpiredToken", .deleteIfNotSeenSince, invalidSince)),
        Case(answer: APNsAnswer(status: 410), expected: verdict("Unregistered", .deleteIfNotSeenSince)),
        Case(answer: APNsAnswer(status: 400, reason: "BadDeviceToken"), expected: verdict("BadDeviceToken", .disable)),
        Case(
            answer: APNsAnswer(status: 400, reason: "DeviceTokenNotForTopic"),
            expected: verdict("DeviceTokenNotForTopic", .disable)),
        Case(answer: APNsAnswer(status: 400, reason: "BadTopic"), expected: .rejected(reason: "BadTopic")),
        Case(answer: APNsAnswer(status: 400, reason: "BadCollapseId"), expected: .rejected(reason: "BadCollapseId")),
        Case(
            answer: APNsAnswer(status: 400, reason: "InvalidPushType"), expected: .rejected(reason: "InvalidPushType")),
        Case(
            answer: APNsAnswer(status: 413, reason: "PayloadTooLarge"), expected: .rejected(reason: "PayloadTooLarge")),
        Case(answer: APNsAnswer(status: 404, reason: "BadPath"), expected: .rejected(reason: "BadPath")),
        Case(
            answer: APNsAnswer(status: 403, reason: "ExpiredProviderToken"),
            expected: .credentialExpired(reason: "ExpiredProviderToken")),
        Case(
            answer: APNsAnswer(status: 403, reason: "InvalidProviderToken"),
            expected: .providerAuthFailure(reason: "InvalidProviderToken")),
        Case(
            answer: APNsAnswer(status: 403, reason: "MissingProviderToken"),
            expected: .providerAuthFailure(reason: "MissingProviderToken")),
        Case(answer: APNsAnswer(status: 403), expected: .providerAuthFailure(reason: "HTTP 403")),
        Case(
            answer: APNsAnswer(status: 429, reason: "TooManyRequests", retryAfter: .seconds(3)),
            expected: .transient(reason: "TooManyRequests", retryAfter: .seconds(3))),
        Case(
            answer: APNsAnswer(status: 429, reason: "TooManyProviderTokenUpdates"),
            expected: .transient(reason: "TooManyProviderTokenUpdates", retryAfter: nil)),
        Case(
            answer: APNsAnswer(status: 500, reason: "InternalServerError"),
            expected: .transient(reason: "InternalServerError", retryAfter: nil)),
        Case(
            answer: APNsAnswer(status: 503, reason: "ServiceUnavailable", retryAfter: .seconds(1)),
            expected: .transient(reason: "ServiceUnavailable", retryAfter: .seconds(1))),
        Case(
            answer: APNsAnswer(status: 503, reason: "Shutdown"),
            expected: .transient(reason: "Shutdown", retryAfter: nil)),
        Case(
            answer: APNsAnswer(status: 400, reason: "IdleTimeout"),
            expected: .transient(reason: "IdleTimeout", retryAfter: nil)),
        Case(answer: APNsAnswer(status: 502), expected: .transient(reason: "HTTP 502", retryAfter: nil)),
        Case(answer: APNsAnswer(status: 400), expected: .rejected(reason: "HTTP 400")),
    ]

    @Test(arguments: cases)
    func classifies(testCase: Case) {
        #expect(testCase.answer.outcome(receivedAt: Self.receivedAt) == testCase.expected)
    }

    @Test func readsReasonTimestampAndRetryAfterFromTheResponse() {
        let answer = APNsAnswer(
            status: 410, apnsID: "id-1", retryAfter: "7",
            body: Array(#"{"reason":"Unregistered","timestamp":1799999000500}"#.utf8), receivedAt: Self.receivedAt)
        #expect(
            answer
                == APNsAnswer(
                    status: 410, reason: "Unregistered", timestamp: Self.invalidSince, apnsID: "id-1",
                    retryAfter: .seconds(7)))
    }

    @Test(arguments: ["", "<html>bad gateway</html>", "[1]", #"{"reason":5}"#])
    func aBodyThatIsNotTheDocumentedJSONStillClassifiesByStatus(body: String) {
        let answer = APNsAnswer(
            status: 502, apnsID: nil, retryAfter: nil, body: Array(body.utf8), receivedAt: Self.receivedAt)
        #expect(answer.reason == nil)
        #expect(answer.outcome(receivedAt: Self.receivedAt) == .transient(reason: "HTTP 502", retryAfter: nil))
    }

    /// One code path: a token verdict carries exactly the policy `POST /v1/feedback` would apply
    /// to the same reason.
    @Test(arguments: ["Unregistered", "ExpiredToken", "BadDeviceToken", "DeviceTokenNotForTopic"])
    func tokenVerdictsUseTheFeedbackClassifier(reason: String) throws {
        guard
            case .tokenInvalid(_, let policy, _) = APNsAnswer(status: 400, reason: reason).outcome(
                receivedAt: Self.receivedAt)
        else {
            Issue.record("not a token verdict")
            return
        }
        #expect(policy == FeedbackClassifier.action(for: reason, service: .apns))
    }
}
