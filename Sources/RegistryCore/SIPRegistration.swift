/// The input of `POST /v1/users/{user_id}/devices/sip`: a SIP Contact carrying RFC 8599 push
/// parameters, and optionally the app's installation id.
public struct SIPRegistration: Sendable, Hashable {
    public let contact: PushContact
    public let deviceID: DeviceID?

    public static let fields = ["contact", "device_id"]

    public static func parse(_ body: JSONValue) throws(ValidationErrors) -> SIPRegistration {
        var reader = JSONObjectReader(body, known: fields)
        let raw = reader.string("contact", required: true)
        let deviceID = reader.value("device_id") { raw throws(ValidationError) in try DeviceID(raw) }
        var contact: PushContact?
        if let raw {
            do { contact = try SIPContact.parse(raw) } catch { for error in error.errors { reader.fail(error) } }
        }
        try reader.finish()
        guard let contact else { throw ValidationErrors(reader.errors) }  // Unreachable: finish() threw.
        return SIPRegistration(contact: contact, deviceID: deviceID ?? contact.deviceID)
    }
}
