/// Reads fields out of a JSON object while collecting every problem, so parsers of request bodies
/// read as a list of fields and still report all errors at once.
///
/// Usage: read each known field, then call `finish()`, which adds one error per unknown key and
/// throws if anything was wrong.
struct JSONObjectReader {
    private let object: [String: JSONValue]
    private let known: [String]
    private(set) var errors: [ValidationError] = []

    /// `known` lists every accepted field, in the order suggestions should prefer.
    init(_ body: JSONValue, known: [String]) {
        self.known = known
        if case .object(let object) = body {
            self.object = object
        } else {
            self.object = [:]
            errors.append(
                ValidationError(field: "", message: "the request body must be a JSON object, not \(body.typeName)"))
        }
    }

    mutating func fail(_ error: ValidationError) {
        errors.append(error)
    }

    /// A string field. Absent or `null` → nil; a missing required field and a non-string are
    /// recorded as errors.
    mutating func string(_ field: String, required: Bool = false) -> String? {
        switch object[field] {
        case .none, .null?:
            if required { errors.append(ValidationError(field: field, message: "is required")) }
            return nil
        case .string(let value)?:
            return value
        case let other?:
            errors.append(ValidationError(field: field, message: "must be a string, not \(other.typeName)"))
            return nil
        }
    }

    /// A string field parsed by `parse`, with its validation error recorded.
    mutating func value<T>(
        _ field: String, required: Bool = false, _ parse: (String) throws(ValidationError) -> T
    ) -> T? {
        guard let raw = string(field, required: required) else { return nil }
        do {
            return try parse(raw)
        } catch {
            errors.append(error)
            return nil
        }
    }

    /// Whether the field is present with a non-null value.
    func has(_ field: String) -> Bool {
        switch object[field] {
        case .none, .null?: false
        default: true
        }
    }

    /// Records unknown fields and throws everything collected.
    mutating func finish() throws(ValidationErrors) {
        for key in object.keys.sorted() where !known.contains(key) {
            errors.append(ValidationError(field: key, message: FieldSuggestion.unknownFieldMessage(key, known: known)))
        }
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }
}
