import Encodings
import Foundation

/// The input of `POST /v1/feedback`: what APNs or FCM answered for a token, and when.
///
/// `timestamp` is the instant the push service says the token stopped being valid (APNs 410
/// carries it); a device registered again after it is kept. The token is checked only for its
/// alphabet and length here: its type-specific rules depend on the provider's service.
public struct FeedbackReport: Sendable, Hashable {
    public let provider: ProviderName
    public let token: String
    public let reason: String
    public let timestamp: Date

    public static let fields = ["provider", "token", "reason", "timestamp"]

    public static func parse(_ body: JSONValue) throws(ValidationErrors) -> FeedbackReport {
        var reader = JSONObjectReader(body, known: fields)
        let provider = reader.value("provider", required: true) { raw throws(ValidationError) in try ProviderName(raw) }
        let token = reader.value("token", required: true) { raw throws(ValidationError) in
            guard (1...4096).contains(raw.utf8.count), ASCIISet.fcmToken.containsAll(raw) else {
                throw ValidationError(
                    field: "token", message: "must be 1–4096 characters of letters, digits, '-', '_', ':' or '.'")
            }
            return raw
        }
        let reason = reader.value("reason", required: true) { raw throws(ValidationError) in
            guard (1...100).contains(TextRules.length(raw)), !TextRules.containsControlCharacter(raw) else {
                throw ValidationError(
                    field: "reason", message: "must be 1–100 characters, e.g. Unregistered or UNREGISTERED")
            }
            return raw
        }
        let timestamp = reader.value("timestamp", required: true) { raw throws(ValidationError) in
            guard let date = RFC3339.parse(raw) else {
                throw ValidationError(
                    field: "timestamp", message: "must be an RFC 3339 timestamp like 2026-01-31T12:00:00Z")
            }
            return date
        }
        try reader.finish()
        guard let provider, let token, let reason, let timestamp else {
            throw ValidationErrors(reader.errors)  // Unreachable: finish() threw for every nil.
        }
        return FeedbackReport(provider: provider, token: token, reason: reason, timestamp: timestamp)
    }
}
