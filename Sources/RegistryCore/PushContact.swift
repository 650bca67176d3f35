/// The push routing a SIP client asked for in its Contact (RFC 8599 `pn-*` parameters).
///
/// - APNs: `bundleID` and `teamID` come from `pn-param`; the API registers `tokens` with the apns
///   provider whose `topic` equals `bundleID`. `environment` is `.production` for
///   `pn-provider=apns`, `.sandbox` for `apns.dev`. `tokens` holds a remote (`apns`) token, a
///   PushKit (`voip`) token, or both, remote first.
/// - FCM: `projectID` is `pn-param` when present (project id or sender id); `tokens` holds one
///   `fcm` token.
/// `deviceID` is the contact's `+sip.instance` (e.g. `urn:uuid:…`) when it is a valid device id:
/// it is the SIP client's stable installation id, so it lets a re-registration with a new token
/// replace the old one exactly as `device_id` does for `POST /v1/devices`.
public struct PushContact: Sendable, Hashable {
    public var service: PushService
    public var environment: APNsEnvironment?
    public var bundleID: String?
    public var teamID: String?
    public var projectID: String?
    public var tokens: [PushToken]
    public var deviceID: DeviceID?

    public init(
        service: PushService, environment: APNsEnvironment? = nil, bundleID: String? = nil, teamID: String? = nil,
        projectID: String? = nil, tokens: [PushToken], deviceID: DeviceID? = nil
    ) {
        self.service = service
        self.environment = environment
        self.bundleID = bundleID
        self.teamID = teamID
        self.projectID = projectID
        self.tokens = tokens
        self.deviceID = deviceID
    }

    /// Whether `provider` is the one this contact asks for: an apns provider whose topic is the
    /// bundle id, or an fcm provider whose project id is `pn-param` (any fcm provider when the
    /// contact named no project — the API should then insist there is exactly one).
    public func matches(_ provider: Provider) -> Bool {
        guard provider.service == service else { return false }
        switch service {
        case .apns: return provider.topic == bundleID
        case .fcm: return projectID == nil || provider.projectID == projectID
        }
    }
}
