import Foundation
import RegistryCore

/// One APNs response (Apple, "Handling notification responses from APNs"): the `:status`, the
/// `apns-id` header, `Retry-After` when present, and the JSON body's `reason` and `timestamp`
/// (milliseconds since the epoch, sent with 410).
public struct APNsAnswer: Sendable, Equatable {
    public let status: Int
    public let reason: String?
    public let timestamp: Date?
    public let apnsID: String?
    public let retryAfter: Duration?

    public init(
        status: Int, reason: String? = nil, timestamp: Date? = nil, apnsID: String? = nil, retryAfter: Duration? = nil
    ) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.retryAfter = retryAfter
    }

    /// Reads the parts of a response. A body that is not the documented JSON only loses the
    /// reason; the status still classifies the answer.
    public init(status: Int, apnsID: String?, retryAfter: String?, body: [UInt8], receivedAt: Date) {
        let fields = ResponseBody.object(body)
        self.init(
            status: status, reason: fields["reason"]?.stringValue,
            timestamp: fields["timestamp"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) },
            apnsID: apnsID, retryAfter: retryAfter.flatMap { RetryAfter.parse($0, now: receivedAt) })
    }

    /// The provider token is refused: a new signature with the same key cannot help.
    static let authFailureReasons: Set = [
        "InvalidProviderToken", "MissingProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden",
    ]
    /// Conditions on Apple's side or of the connection, not of this message.
    static let transientReasons: Set = [
        "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown",
        "IdleTimeout",
    ]

    public func outcome(receivedAt: Date) -> PushOutcome {
        if status == 200 { return .sent(serviceID: apnsID) }
        let reason = reason ?? (status == 410 ? "Unregistered" : "HTTP \(status)")
        if reason == "ExpiredProviderToken" { return .credentialExpired(reason: reason) }
        if Self.authFailureReasons.contains(reason) || status == 403 { return .providerAuthFailure(reason: reason) }
        let condemned = PushOutcome.condemning(
            FeedbackReason(reason, service: .apns), spelled: reason, observedAt: timestamp ?? receivedAt)
        if let condemned { return condemned }
        if status == 429 || status >= 500 || Self.transientReasons.contains(reason) {
            return .transient(reason: reason, retryAfter: retryAfter)
        }
        return .rejected(reason: reason)
    }
}
