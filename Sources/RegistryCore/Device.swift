import Foundation

/// A stored registration as the API returns it (the API's `DeviceJSON` writes it).
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
