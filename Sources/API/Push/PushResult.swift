import RegistryCore

/// One device's line in the `POST /v1/push` answer. Carries a hint of the token (its last 8
/// characters), never the token: a `push:send` key must not learn full tokens.
struct PushResult: Encodable {
    enum Status: String, Encodable {
        case sent
        case tokenInvalid = "token_invalid"
        case rejected, failed, expired, skipped
    }

    let provider: String
    let type: String
    let device_id: String?
    let token_hint: String
    var status = Status.skipped
    /// The `apns-id` APNs answered or the FCM message name.
    var service_id: String?
    var reason: String?
    var action: FeedbackAction?

    init(device: Device) {
        provider = device.provider.value
        type = device.type.rawValue
        device_id = device.deviceID?.value
        token_hint = String(device.token.value.suffix(8))
    }

    func finished(_ status: Status, reason: String?) -> PushResult {
        var result = self
        result.status = status
        result.reason = reason
        return result
    }

    func encode(to encoder: any Encoder) throws {
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
    }
    private enum CodingKeys: String, CodingKey {
        case provider, type, device_id, token_hint, status, service_id, reason, action
    }
}

struct PushResultsBody: Encodable { let results: [PushResult] }
