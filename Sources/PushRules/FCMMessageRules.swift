import RegistryCore

/// What FCM v1 refuses in a `message`, checked before sending so a bad message is a 422 naming
/// the field instead of an `INVALID_ARGUMENT` per device.
public enum FCMMessageRules {
    /// Keys FCM reserves in `data` (Firebase, "Set up a Firebase Cloud Messaging client"):
    /// `from`, `message_type`, and anything starting with `google` or `gcm`.
    static func isReserved(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// Every problem in `message` (the object a sender puts the device's token into): it must
    /// be an object, must not choose its own target, and its `data` must map keys to strings.
    public static func problems(in message: JSONValue, field: String = "fcm.message") -> [ValidationError] {
        guard case .object(let fields) = message else {
            return [ValidationError(field: field, message: "must be an object, not \(message.typeName)")]
        }
        var errors: [ValidationError] = []
        for target in ["token", "topic", "condition"] where fields[target] != nil {
            errors.append(
                ValidationError(field: "\(field).\(target)", message: "is set per device by the sender; leave it out"))
        }
        switch fields["data"] {
        case nil:
            break
        case .object(let data)?:
            for (key, value) in data.sorted(by: { $0.key < $1.key }) {
                if isReserved(key) {
                    errors.append(
                        ValidationError(
                            field: "\(field).data.\(key)",
                            message: "is reserved by FCM (from, message_type, google…, gcm…)"))
                } else if value.stringValue == nil {
                    errors.append(
                        ValidationError(
                            field: "\(field).data.\(key)",
                            message: "must be a string, not \(value.typeName): FCM data values are strings"))
                }
            }
        case let other?:
            errors.append(ValidationError(field: "\(field).data", message: "must be an object, not \(other.typeName)"))
        }
        return errors
    }
}
