/// The input of `POST /v1/keys` and `keys create`: a name for people and the scopes it grants.
///
/// `name`: 1–100 characters, no control characters. `scopes`: one or more of `devices:read`,
/// `devices:write`, `admin`, each at most once.
public struct NewAPIKey: Sendable, Hashable {
    public let name: String
    public let scopes: [APIKeyScope]

    public init(name: String, scopes: [APIKeyScope]) throws(ValidationErrors) {
        var errors: [ValidationError] = []
        if name.isEmpty || TextRules.length(name) > 100 || TextRules.containsControlCharacter(name)
            || TextRules.isBlank(name)
        {
            errors.append(
                ValidationError(field: "name", message: "must be 1–100 characters without control characters"))
        }
        if scopes.isEmpty {
            errors.append(
                ValidationError(
                    field: "scopes", message: "must name at least one of devices:read, devices:write, push:send, admin")
            )
        } else if Set(scopes).count != scopes.count {
            errors.append(ValidationError(field: "scopes", message: "must not repeat a scope"))
        }
        guard errors.isEmpty else { throw ValidationErrors(errors) }
        self.name = name
        self.scopes = scopes
    }

    public static let fields = ["name", "scopes"]

    public static func parse(_ body: JSONValue) throws(ValidationErrors) -> NewAPIKey {
        var reader = JSONObjectReader(body, known: fields)
        let name = reader.string("name", required: true)
        var scopes: [APIKeyScope]?
        switch body.field("scopes") {
        case nil, .null?:
            reader.fail(ValidationError(field: "scopes", message: "is required"))
        case .array(let values)?:
            var parsed: [APIKeyScope] = []
            for value in values {
                guard case .string(let raw) = value, let scope = APIKeyScope(rawValue: raw) else {
                    reader.fail(
                        ValidationError(
                            field: "scopes", message: "must contain only devices:read, devices:write or admin"))
                    break
                }
                parsed.append(scope)
            }
            scopes = parsed
        case let other?:
            reader.fail(ValidationError(field: "scopes", message: "must be an array, not \(other.typeName)"))
        }
        if let name, let scopes, reader.errors.isEmpty {
            do { return try finishing(&reader, NewAPIKey(name: name, scopes: scopes)) } catch {
                for error in error.errors { reader.fail(error) }
            }
        }
        try reader.finish()
        throw ValidationErrors(reader.errors)  // Unreachable: a nil above recorded an error.
    }

    private static func finishing(_ reader: inout JSONObjectReader, _ key: NewAPIKey) throws(ValidationErrors)
        -> NewAPIKey
    {
        try reader.finish()
        return key
    }
}

extension JSONValue {
    /// A field of an object; nil for a missing field or a value that is not an object.
    func field(_ name: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[name]
    }
}
