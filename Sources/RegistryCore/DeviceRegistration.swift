/// The validated input of `POST /v1/devices`: which user a token belongs to, and through which
/// provider to reach it.
///
/// `environment` is non-nil exactly when the token is an APNs one (`apns`/`voip`), defaulting to
/// `.production`; an FCM token has no APNs environment, and saying one is refused rather than
/// ignored because it means the client is confused about what it registered.
public struct DeviceRegistration: Sendable, Hashable {
    public var userID: UserID
    public var provider: ProviderName
    public var token: PushToken
    public var environment: APNsEnvironment?
    public var deviceID: DeviceID?
    public var platform: Platform?
    public var appVersion: AppVersion?
    public var locale: LocaleTag?

    public var type: TokenType { token.type }

    /// Throws `environment` errors when an environment is given for an FCM token.
    public init(
        userID: UserID, provider: ProviderName, token: PushToken, environment: APNsEnvironment? = nil,
        deviceID: DeviceID? = nil, platform: Platform? = nil, appVersion: AppVersion? = nil, locale: LocaleTag? = nil
    ) throws(ValidationError) {
        switch token.type.service {
        case .apns:
            self.environment = environment ?? .production
        case .fcm:
            guard environment == nil else {
                throw ValidationError(
                    field: "environment", message: "must be omitted for fcm tokens; it only applies to apns and voip")
            }
            self.environment = nil
        }
        self.userID = userID
        self.provider = provider
        self.token = token
        self.deviceID = deviceID
        self.platform = platform
        self.appVersion = appVersion
        self.locale = locale
    }

    /// The JSON fields of a registration body, in the order errors and suggestions use.
    public static let fields = [
        "user_id", "provider", "type", "token", "environment", "device_id", "platform", "app_version", "locale",
    ]

    /// Parses a decoded request body. Required: `user_id`, `provider`, `type`, `token`. Unknown
    /// fields, wrong JSON types and invalid values are all reported together; `null` counts as
    /// absent. The token is only checked once `type` is valid, since its rules depend on it.
    public static func parse(_ body: JSONValue) throws(ValidationErrors) -> DeviceRegistration {
        var reader = JSONObjectReader(body, known: fields)
        let userID = reader.value("user_id", required: true) { raw throws(ValidationError) in try UserID(raw) }
        let provider = reader.value("provider", required: true) { raw throws(ValidationError) in try ProviderName(raw) }
        let type = reader.value("type", required: true) { raw throws(ValidationError) in try TokenType(raw) }
        let rawToken = reader.string("token", required: true)
        var token: PushToken?
        if let type, let rawToken {
            do { token = try PushToken(type: type, raw: rawToken) } catch { reader.fail(error) }
        }
        let environment = reader.value("environment") { raw throws(ValidationError) in try APNsEnvironment(raw) }
        let deviceID = reader.value("device_id") { raw throws(ValidationError) in try DeviceID(raw) }
        let platform = reader.value("platform") { raw throws(ValidationError) in try Platform(raw) }
        let appVersion = reader.value("app_version") { raw throws(ValidationError) in try AppVersion(raw) }
        let locale = reader.value("locale") { raw throws(ValidationError) in try LocaleTag(raw) }

        var registration: DeviceRegistration?
        if let userID, let provider, let token {
            do {
                registration = try DeviceRegistration(
                    userID: userID, provider: provider, token: token, environment: environment,
                    deviceID: deviceID, platform: platform, appVersion: appVersion, locale: locale)
            } catch {
                reader.fail(error)
            }
        } else if type == .fcm, reader.has("environment") {
            reader.fail(
                ValidationError(
                    field: "environment", message: "must be omitted for fcm tokens; it only applies to apns and voip"))
        }
        try reader.finish()
        guard let registration else {
            // Unreachable: every nil above recorded an error, so finish() threw.
            throw ValidationErrors([ValidationError(field: "", message: "invalid registration")])
        }
        return registration
    }
}
