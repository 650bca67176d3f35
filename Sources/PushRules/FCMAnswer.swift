import Foundation
import RegistryCore

/// One FCM HTTP v1 `messages:send` response: the HTTP status, `Retry-After`, and from the JSON
/// body either the message `name` or the `error` (a `google.rpc.Status`: `status`, `message`, and
/// `details` carrying the FCM `errorCode` and `google.rpc.BadRequest` field violations).
public struct FCMAnswer: Sendable, Equatable {
    public let status: Int
    public let messageName: String?
    /// The canonical gRPC status name, e.g. `NOT_FOUND`.
    public let errorStatus: String?
    /// The FCM-specific code from `details`, e.g. `UNREGISTERED`; more precise than the status.
    public let errorCode: String?
    public let errorMessage: String?
    /// The `field` of every `google.rpc.BadRequest` violation, e.g. `message.token`.
    public let violatedFields: [String]
    public let retryAfter: Duration?

    public init(
        status: Int, messageName: String? = nil, errorStatus: String? = nil, errorCode: String? = nil,
        errorMessage: String? = nil, violatedFields: [String] = [], retryAfter: Duration? = nil
    ) {
        self.status = status
        self.messageName = messageName
        self.errorStatus = errorStatus
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.violatedFields = violatedFields
        self.retryAfter = retryAfter
    }

    public init(status: Int, retryAfter: String?, body: [UInt8], receivedAt: Date) {
        let fields = ResponseBody.object(body)
        let error = fields["error"]?.objectValue ?? [:]
        let details = error["details"]?.arrayValue?.compactMap(\.objectValue) ?? []
        self.init(
            status: status, messageName: fields["name"]?.stringValue, errorStatus: error["status"]?.stringValue,
            errorCode: details.lazy.compactMap { $0["errorCode"]?.stringValue }.first,
            errorMessage: error["message"]?.stringValue,
            violatedFields: details.flatMap { detail in
                (detail["fieldViolations"]?.arrayValue ?? []).compactMap { $0.objectValue?["field"]?.stringValue }
            },
            retryAfter: retryAfter.flatMap { RetryAfter.parse($0, now: receivedAt) })
    }

    static let transientReasons: Set = ["UNAVAILABLE", "INTERNAL", "QUOTA_EXCEEDED"]

    /// An `INVALID_ARGUMENT` condemns the token only when it is about the token: FCM sends the
    /// same code for a bad payload, which must leave the device alone.
    var namesTheToken: Bool {
        violatedFields.contains("message.token")
            || (errorMessage?.contains("registration token") ?? false)
    }

    public func outcome(receivedAt: Date) -> PushOutcome {
        if status == 200 { return .sent(serviceID: messageName) }
        let reason = errorCode ?? errorStatus ?? "HTTP \(status)"
        if reason == "THIRD_PARTY_AUTH_ERROR" { return .providerAuthFailure(reason: reason) }
        // 401: the access token was refused (expired or revoked); a fresh one may be accepted.
        if status == 401 { return .credentialExpired(reason: reason) }
        var feedback = FeedbackReason(reason, service: .fcm)
        if reason == "INVALID_ARGUMENT", namesTheToken { feedback = .invalidRegistration }
        if let condemned = PushOutcome.condemning(feedback, spelled: reason, observedAt: receivedAt) {
            return condemned
        }
        if status == 403 { return .providerAuthFailure(reason: reason) }
        if status == 429 || status >= 500 || Self.transientReasons.contains(reason) {
            return .transient(reason: reason, retryAfter: retryAfter)
        }
        return .rejected(reason: reason)
    }
}
