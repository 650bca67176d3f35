import RegistryCore

/// The payload shape a provider's app parses (`call_format` on the provider), named after the
/// document that defines it. `dialstack`, `react-native` and `signalwire` define only the ring;
/// their apps get the `stream` shape for the non-ringing events.
public enum CallFormat: String, Sendable, Hashable, CaseIterable {
    /// Stream Video v2 (the default).
    case stream
    /// DialStack's mobile guide: `call_id`, `from_number`, `from_name`, `to_number`.
    case dialstack
    /// The React Native VoIP module: an `incomingCall` event.
    case reactNative = "react-native"
    /// Flexisip's push bodies, for SIP clients registered through the SIP route.
    case flexisip
    /// SignalWire: a compressed, optionally encrypted `invite`.
    case signalwire

    public init(_ raw: String, field: String = "call_format") throws(ValidationError) {
        guard let format = CallFormat(rawValue: raw) else {
            throw ValidationError(
                field: field, message: "must be one of: " + Self.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = format
    }
}
