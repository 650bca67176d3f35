import RegistryCore

/// Who is calling: what the phone shows on its incoming-call screen. Only `id` is required; an
/// empty `display_name` counts as not given (Stream and DialStack send "" for "unknown").
public struct Caller: Sendable, Hashable {
    public let id: String
    public let displayName: String?
    public let phoneNumber: PhoneNumber?
    public let avatarURL: String?
    public let email: String?
    public let sipURI: String?

    /// The JSON fields of `caller`, in the order suggestions prefer.
    static let fields = ["id", "display_name", "phone_number", "avatar_url", "email", "sip_uri"]

    /// Errors name `<field>.<name>`, e.g. `caller.phone_number`.
    public init(
        id: String, displayName: String? = nil, phoneNumber: String? = nil, avatarURL: String? = nil,
        email: String? = nil, sipURI: String? = nil, field: String = "caller"
    ) throws(ValidationErrors) {
        var checks = ValidationCollector()
        let id = checks.check { () throws(ValidationError) in try CallFieldRules.id(id, field: "\(field).id") }
        let displayName = displayName.flatMap { name in
            checks.check { () throws(ValidationError) in
                try CallFieldRules.text(name, field: "\(field).display_name")
            } ?? nil
        }
        let phoneNumber = phoneNumber.flatMap { number in
            checks.check { () throws(ValidationError) in try PhoneNumber(number, field: "\(field).phone_number") }
        }
        let avatarURL = avatarURL.flatMap { url in
            checks.check { () throws(ValidationError) in try CallFieldRules.url(url, field: "\(field).avatar_url") }
        }
        let email = email.flatMap { address in
            checks.check { () throws(ValidationError) in try CallFieldRules.email(address, field: "\(field).email") }
        }
        let sipURI = sipURI.flatMap { uri in
            checks.check { () throws(ValidationError) in try CallFieldRules.sipURI(uri, field: "\(field).sip_uri") }
        }
        try checks.finish()
        self.init(
            validatedID: id!, displayName: displayName, phoneNumber: phoneNumber, avatarURL: avatarURL, email: email,
            sipURI: sipURI)
    }

    private init(
        validatedID id: String, displayName: String?, phoneNumber: PhoneNumber?, avatarURL: String?, email: String?,
        sipURI: String?
    ) {
        self.id = id
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.avatarURL = avatarURL
        self.email = email
        self.sipURI = sipURI
    }

    /// Reads the fields of a `caller` object, recording every problem in `reader`.
    static func read(_ reader: inout JSONObjectReader) -> Caller? {
        let id = reader.value("id", required: true, CallFieldRules.id)
        let displayName = reader.value("display_name") { raw, field throws(ValidationError) in
            try CallFieldRules.text(raw, field: field)
        }
        let phoneNumber = reader.value("phone_number", PhoneNumber.init)
        let avatarURL = reader.value("avatar_url", CallFieldRules.url)
        let email = reader.value("email", CallFieldRules.email)
        let sipURI = reader.value("sip_uri", CallFieldRules.sipURI)
        guard let id else { return nil }
        return Caller(
            validatedID: id, displayName: displayName ?? nil, phoneNumber: phoneNumber, avatarURL: avatarURL,
            email: email, sipURI: sipURI)
    }

    /// The name to show: the display name, else the phone number, else the SIP URI, else the id.
    var shownName: String { displayName ?? phoneNumber?.value ?? sipURI ?? id }
}
