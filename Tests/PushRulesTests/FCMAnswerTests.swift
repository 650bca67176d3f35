import Foundation
import RegistryCore
import Testing

@testable import PushRules

@Suite struct FCMAnswerTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static func body(code: Int, status: String, message: String = "m", details: String = "") -> String {
        #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details)]}}"#
    }

    static func fcmError(_ code: String) -> String {
        #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}"#
    }

    static let tokenViolation =
        #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"Invalid registration token"}]}"#
    static let payloadViolation =
        #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.data[0].value","description":"Invalid value"}]}"#

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int
        let body: String
        let retryAfter: String?
        let expected: PushOutcome
        var testDescription: String { name }
    }

    static func verdict(_ reason: String, _ policy: FeedbackPolicy) -> PushOutcome {
        .tokenInvalid(reason: reason, policy: policy, observedAt: receivedAt)
    }

    /// The FCM v1 `ErrorCode`s (firebase.google.com, "FCM error codes") as the service sends them.
    static let cases: [Case] = [
        Case(
            name: "sent", status: 200, body: #"{"name":"projects/p/messages/0:1500415314455276%31bd1c96"}"#,
            retryAfter: nil, expected: .sent(serviceID: "projects/p/messages/0:1500415314455276%31bd1c96")),
        Case(
            name: "UNREGISTERED", status: 404,
            body: body(code: 404, status: "NOT_FOUND", details: fcmError("UNREGISTERED")), retryAfter: nil,
            expected: verdict("UNREGISTERED", .deleteIfNotSeenSince)),
        Case(
            name: "SENDER_ID_MISMATCH", status: 403,
            body: body(code: 403, status: "PERMISSION_DENIED", details: fcmError("SENDER_ID_MISMATCH")),
            retryAfter: nil, expected: verdict("SENDER_ID_MISMATCH", .disable)),
        Case(
            name: "INVALID_ARGUMENT naming the token", status: 400,
            body: body(
                code: 400, status: "INVALID_ARGUMENT", details: fcmError("INVALID_ARGUMENT") + "," + tokenViolation),
            retryAfter: nil, expected: verdict("INVALID_ARGUMENT", .disable)),
        Case(
            name: "INVALID_ARGUMENT whose message names the token", status: 400,
            body: body(
                code: 400, status: "INVALID_ARGUMENT",
                message: "The registration token is not a valid FCM registration token",
                details: fcmError("INVALID_ARGUMENT")),
            retryAfter: nil, expected: verdict("INVALID_ARGUMENT", .disable)),
        Case(
            name: "INVALID_ARGUMENT about the payload", status: 400,
            body: body(
                code: 400, status: "INVALID_ARGUMENT", message: "Invalid value at 'message.data[0].value'",
                details: fcmError("INVALID_ARGUMENT") + "," + payloadViolation),
            retryAfter: nil, expected: .rejected(reason: "INVALID_ARGUMENT")),
        Case(
            name: "THIRD_PARTY_AUTH_ERROR", status: 401,
            body: body(code: 401, status: "UNAUTHENTICATED", details: fcmError("THIRD_PARTY_AUTH_ERROR")),
            retryAfter: nil, expected: .providerAuthFailure(reason: "THIRD_PARTY_AUTH_ERROR")),
        Case(
            name: "access token refused", status: 401, body: body(code: 401, status: "UNAUTHENTICATED"),
            retryAfter: nil, expected: .credentialExpired(reason: "UNAUTHENTICATED")),
        Case(
            name: "PERMISSION_DENIED", status: 403, body: body(code: 403, status: "PERMISSION_DENIED"),
            retryAfter: nil, expected: .providerAuthFailure(reason: "PERMISSION_DENIED")),
        Case(
            name: "QUOTA_EXCEEDED", status: 429,
            body: body(code: 429, status: "RESOURCE_EXHAUSTED", details: fcmError("QUOTA_EXCEEDED")),
            retryAfter: "30", expected: .transient(reason: "QUOTA_EXCEEDED", retryAfter: .seconds(30))),
        Case(
            name: "UNAVAILABLE", status: 503,
            body: body(code: 503, status: "UNAVAILABLE", details: fcmError("UNAVAILABLE")), retryAfter: "2",
            expected: .transient(reason: "UNAVAILABLE", retryAfter: .seconds(2))),
        Case(
            name: "INTERNAL", status: 500, body: body(code: 500, status: "INTERNAL", details: fcmError("INTERNAL")),
            retryAfter: nil, expected: .transient(reason: "INTERNAL", retryAfter: nil)),
        Case(
            name: "a proxy's 502", status: 502, body: "<html>Bad Gateway</html>", retryAfter: nil,
            expected: .transient(reason: "HTTP 502", retryAfter: nil)),
        Case(
            name: "project not found", status: 404, body: body(code: 404, status: "NOT_FOUND"), retryAfter: nil,
            expected: .rejected(reason: "NOT_FOUND")),
    ]

    @Test(arguments: cases)
    func classifies(testCase: Case) {
        let answer = FCMAnswer(
            status: testCase.status, retryAfter: testCase.retryAfter, body: Array(testCase.body.utf8),
            receivedAt: Self.receivedAt)
        #expect(answer.outcome(receivedAt: Self.receivedAt) == testCase.expected)
    }

    @Test(arguments: ["UNREGISTERED", "SENDER_ID_MISMATCH"])
    func tokenVerdictsUseTheFeedbackClassifier(code: String) {
        let outcome = FCMAnswer(status: 404, errorCode: code).outcome(receivedAt: Self.receivedAt)
        guard case .tokenInvalid(_, let policy, _) = outcome else {
            Issue.record("not a token verdict: \(outcome)")
            return
        }
        #expect(policy == FeedbackClassifier.action(for: code, service: .fcm))
    }
}
