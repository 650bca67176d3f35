import Encodings
import Foundation

/// A stored registration as the API returns it.
///
/// Encodes itself as the API's JSON (snake_case keys, RFC 3339 UTC timestamps with fractional
/// seconds, absent optionals as `null`) so every endpoint renders a device the same way whatever
/// the encoder's date strategy.
public struct Device: Sendable, Hashable {
    public var userID: UserID
    public var provider: ProviderName
    public var token: PushToken
    public var environment: APNsEnvironment?
    public var deviceID: DeviceID?
    public var platform: Platform?
    public var appVersion: AppVersion?
    public var locale: LocaleTag?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSeenAt: Date
    /// Why feedback disabled this token (e.g. `BadDeviceToken`); nil while it is active.
    public var disabledReason: String?
    public var disabledAt: Date?

    public var type: TokenType { token.type }

    public init(
        userID: UserID, provider: ProviderName, token: PushToken, environment: APNsEnvironment?,
        deviceID: DeviceID?, platform: Platform?, appVersion: AppVersion?, locale: LocaleTag?,
        createdAt: Date, updatedAt: Date, lastSeenAt: Date, disabledReason: String? = nil, disabledAt: Date? = nil
    ) {
        self.userID = userID
        self.provider = provider
        self.token = token
        self.environment = environment
        self.deviceID = deviceID
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastSeenAt = lastSeenAt
        self.disabledReason = disabledReason
        self.disabledAt = disabledAt
    }
}

extension Device: Encodable {
    private enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case provider, type, token, environment
        case deviceID = "device_id"
        case platform
        case appVersion = "app_version"
        case locale
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case lastSeenAt = "last_seen_at"
        case disabledReason = "disabled_reason"
        case disabledAt = "disabled_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userID, forKey: .userID)
        try container.encode(provider, forKey: .provider)
        try container.encode(type, forKey: .type)
        try container.encode(token.value, forKey: .token)
        try container.encode(environment, forKey: .environment)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(platform, forKey: .platform)
        try container.encode(appVersion, forKey: .appVersion)
        try container.encode(locale, forKey: .locale)
        try container.encode(RFC3339.format(createdAt), forKey: .createdAt)
        try container.encode(RFC3339.format(updatedAt), forKey: .updatedAt)
        try container.encode(RFC3339.format(lastSeenAt), forKey: .lastSeenAt)
        try container.encode(disabledReason, forKey: .disabledReason)
        try container.encode(disabledAt.map(RFC3339.format), forKey: .disabledAt)
    }
}
