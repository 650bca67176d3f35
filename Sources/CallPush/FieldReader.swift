import RegistryCore

/// Reads the fields of one JSON object while collecting every problem, each named by its full
/// path (`caller.phone_number`, `user_ids[2]`), so a call event with nested objects still reports
/// all its mistakes in one answer.
///
/// The nested cousin of RegistryCore's internal `JSONObjectReader`, with the same wording: absent
/// and `null` are the same, unknown fields are refused with a "did you mean".
struct FieldReader {
    private let object: [String: JSONValue]
    private let known: [String]
    /// The path of this object: "" for the body itself.
    private let path: String
    /// For bodies we do not own (webhooks): their sender adds fields as it likes.
    private let ignoresUnknownFields: Bool
    private(set) var errors: [ValidationError] = []

    init(_ body: JSONValue, known: [String], path: String = "", ignoresUnknownFields: Bool = false) {
        self.known = known
        self.path = path
        self.ignoresUnknownFields = ignoresUnknownFields
        if case .object(let object) = body {
            self.object = object
        } else {
            self.object = [:]
            let message =
                path.isEmpty
                ? "the request body must be a JSON object, not \(body.typeName)"
                : "must be an object, not \(body.typeName)"
            errors.append(ValidationError(field: path, message: message))
        }
    }

    /// The full path of a field of this object.
    func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    mutating func fail(_ error: ValidationError) {
        errors.append(error)
    }

    /// The field's value when present and not `null`; a missing required field is recorded.
    mutating func raw(_ field: String, required: Bool = false) -> JSONValue? {
        switch object[field] {
        case .none, .null?:
            if required { errors.append(ValidationError(field: name(field), message: "is required")) }
            return nil
        case let value?:
            return value
        }
    }

    mutating func string(_ field: String, required: Bool = false) -> String? {
        guard let value = raw(field, required: required) else { return nil }
        guard case .string(let text) = value else {
            errors.append(ValidationError(field: name(field), message: "must be a string, not \(value.typeName)"))
            return nil
        }
        return text
    }

    mutating func bool(_ field: String) -> Bool? {
        guard let value = raw(field) else { return nil }
        guard case .bool(let flag) = value else {
            errors.append(ValidationError(field: name(field), message: "must be a boolean, not \(value.typeName)"))
            return nil
        }
        return flag
    }

    /// A string field turned into a value by `parse`, which is given the field's full path to name
    /// in its error.
    mutating func value<T>(
        _ field: String, required: Bool = false, _ parse: (String, String) throws(ValidationError) -> T
    ) -> T? {
        guard let text = string(field, required: required) else { return nil }
        do {
            return try parse(text, name(field))
        } catch {
            errors.append(error)
            return nil
        }
    }

    /// A nested object read by `read`; its errors, unknown fields included, join this reader's.
    mutating func object<T>(
        _ field: String, known: [String], required: Bool = false, _ read: (inout FieldReader) -> T?
    ) -> T? {
        guard let value = raw(field, required: required) else { return nil }
        var nested = FieldReader(
            value, known: known, path: name(field), ignoresUnknownFields: ignoresUnknownFields)
        guard nested.errors.isEmpty else {
            errors += nested.errors
            return nil
        }
        let result = read(&nested)
        nested.recordUnknownFields()
        errors += nested.errors
        return result
    }

    /// Records one error per field not in `known`, in name order, unless unknown fields are ignored.
    mutating func recordUnknownFields() {
        guard !ignoresUnknownFields else { return }
        for key in object.keys.sorted() where !known.contains(key) {
            errors.append(
                ValidationError(field: name(key), message: FieldSuggestion.unknownFieldMessage(key, known: known)))
        }
    }

    /// Records unknown fields and throws everything collected.
    mutating func finish() throws(ValidationErrors) {
        recordUnknownFields()
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }
}
