import RegistryCore

/// A `POST /v1/devices` body: the registration, and whether the device wants its SignalWire
/// payloads encrypted (`"payload_encryption": "aes_256_gcm"`, with `"rotate_payload_key": true`
/// to replace the key it has). Whether the provider allows it is the store's check. Only this
/// route takes these fields: the phone is shown its key once, in this answer, and a batch or an
/// import is no place to hand a phone a secret.
struct RegistrationRequest {
    let registration: DeviceRegistration
    let encryptsPayload: Bool
    let rotatesPayloadKey: Bool

    static let fields = ["payload_encryption", "rotate_payload_key"]

    /// Every problem at once, the registration's and these fields'.
    static func parse(_ body: JSONValue) throws(ValidationErrors) -> RegistrationRequest {
        // Most bodies name neither field: then the body is the registration as it is (taking the
        // fields out copied and rehashed the whole object for every registration).
        guard case .object(var registrationFields) = body, fields.contains(where: { registrationFields[$0] != nil })
        else {
            return RegistrationRequest(
                registration: try DeviceRegistration.parse(body), encryptsPayload: false, rotatesPayloadKey: false)
        }
        var own: [String: JSONValue] = [:]
        for field in fields { own[field] = registrationFields.removeValue(forKey: field) }
        var reader = JSONObjectReader(.object(own), known: fields)
        let encryption = reader.value("payload_encryption") { raw throws(ValidationError) in
            guard raw == "aes_256_gcm" else {
                throw ValidationError(field: "payload_encryption", message: "must be aes_256_gcm")
            }
            return raw
        }
        let rotate = reader.bool("rotate_payload_key") ?? false
        if rotate, !reader.has("payload_encryption") {
            reader.fail(
                ValidationError(field: "rotate_payload_key", message: "only applies with payload_encryption"))
        }
        var errors: [ValidationError] = []
        var registration: DeviceRegistration?
        do throws(ValidationErrors) {
            registration = try DeviceRegistration.parse(.object(registrationFields))
        } catch {
            errors = error.errors
        }
        do throws(ValidationErrors) { try reader.finish() } catch { errors += error.errors }
        guard errors.isEmpty, let registration else { throw ValidationErrors(errors) }
        return RegistrationRequest(
            registration: registration, encryptsPayload: encryption != nil, rotatesPayloadKey: rotate)
    }
}
