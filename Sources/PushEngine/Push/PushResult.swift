import Encodings
import RegistryCore

/// What the engine reports for one device: its line in the `POST /v1/push` and call-event
/// answers, and (its status, reason and service id: `PushResultRecord`) a push job's record of the
/// device. The last of the three words for what happened to a push, after `PushOutcome` (one
/// service answer) and `DeliveryResult` (one push's attempts): it adds what never reached a sender
/// (`skipped`, a provider without credentials) and the registry's action on a dead token. Carries
/// a hint of the token (its last 8 characters), never the token: a `push:send` key must not learn
/// full tokens. Decodable because a call event's results are stored and answered again
/// (duplicates, history).
package struct PushResult: Codable {
    package enum Status: String, Codable {
        case sent
        case tokenInvalid = "token_invalid"
        case rejected, failed, expired, skipped
    }

    package let provider: String
    package let type: String
    package let device_id: String?
    package let token_hint: String
    package var status = Status.skipped
    /// The `apns-id` APNs answered or the FCM message name.
    package var service_id: String?
    package var reason: String?
    package var action: FeedbackAction?
    /// Attempts made, and whether one reached the push service and went unanswered
    /// (`DeliveryResult.maybeDelivered`): the device may have the push although the status
    /// is not `sent`, or twice when it is.
    package var attempts = 0
    package var maybe_delivered = false

    package init(device: Device) {
        provider = device.provider.value
        type = device.type.rawValue
        device_id = device.deviceID?.value
        token_hint = String(device.token.value.suffix(8))
    }

    package func finished(_ status: Status, reason: String?) -> PushResult {
        var result = self
        result.status = status
        result.reason = reason
        return result
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decode(String.self, forKey: .provider)
        type = try container.decode(String.self, forKey: .type)
        device_id = try container.decodeIfPresent(String.self, forKey: .device_id)
        token_hint = try container.decode(String.self, forKey: .token_hint)
        status = try container.decode(Status.self, forKey: .status)
        service_id = try container.decodeIfPresent(String.self, forKey: .service_id)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        action = try container.decodeIfPresent(FeedbackAction.self, forKey: .action)
        // Absent from results stored before they were recorded.
        attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        maybe_delivered = try container.decodeIfPresent(Bool.self, forKey: .maybe_delivered) ?? false
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(type, forKey: .type)
        try container.encode(device_id, forKey: .device_id)
        try container.encode(token_hint, forKey: .token_hint)
        try container.encode(status, forKey: .status)
        try container.encode(service_id, forKey: .service_id)
        try container.encode(reason, forKey: .reason)
        // `ignored`: the device was gone by the time the verdict came; nothing was done.
        try container.encode(action.flatMap { $0 == .ignored ? nil : $0.rawValue }, forKey: .action)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(maybe_delivered, forKey: .maybe_delivered)
    }
    private enum CodingKeys: String, CodingKey {
        case provider, type, device_id, token_hint, status, service_id, reason, action, attempts, maybe_delivered
    }
}
