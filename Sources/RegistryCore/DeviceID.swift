/// The app's stable installation id (e.g. `identifierForVendor`, a Firebase installation id, a
/// SIP `+sip.instance` URN): 1–128 characters, no control characters, not only whitespace.
/// JSON field `device_id`.
public struct DeviceID: ValidatedText {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        try TextRules.checkLabel(raw, field: "device_id", maxLength: 128)
        value = raw
    }
}
