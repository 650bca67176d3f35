import RegistryCore

/// One device as a call push sees it: whose it is, what kind of token, and what its provider and
/// registration add to the payload.
public struct PushTarget: Sendable, Hashable {
    /// The user the push is addressed to (Stream's `receiver_id`).
    public let userID: UserID
    public let tokenType: TokenType
    /// The APNs provider's topic (the app's bundle id); nil for FCM.
    public let bundleID: String?
    /// The registration's `device_id`: Flexisip's `uuid` (the SIP `+sip.instance`).
    public let deviceID: DeviceID?
    /// Set when the device asked for encrypted payloads (SignalWire).
    public let payloadKey: PayloadKey?

    public init(
        userID: UserID, tokenType: TokenType, bundleID: String? = nil, deviceID: DeviceID? = nil,
        payloadKey: PayloadKey? = nil
    ) {
        self.userID = userID
        self.tokenType = tokenType
        self.bundleID = bundleID
        self.deviceID = deviceID
        self.payloadKey = payloadKey
    }
}
