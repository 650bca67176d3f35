/// Reads the fields of a JSON object while collecting every problem, so parsers of request bodies
/// read as a list of fields and still report all errors in one answer.
///
/// Usage: read each known field, then call `finish()`, which adds one error per unknown field and
/// throws if anything was wrong. Absent and `null` are the same: "not given". Every error names its
/// field by its full path from the body (`caller.phone_number`), so nested objects (`object(_:…)`)
/// report their mistakes in the same list, under their own names.
public struct JSONObjectReader {
    private let object: [String: JSONValue]
    private let known: [String]
    /// The path of this object: "" for the body itself.
    private let path: String
    private let ignoresUnknownFields: Bool
    /// Every problem recorded so far, in the order found.
    public private(set) var errors: [ValidationError] = []

    /// `known` lists every accepted field, in the order suggestions should prefer. `path` is where
    /// this object sits in the body ("" for the body itself); a `body` that is not an object is
    /// recorded as an error on that path. `ignoresUnknownFields` is for bodies we do not own
    /// (webhooks), whose sender adds fields as it likes; nested readers inherit it.
    public init(_ body: JSONValue, known: [String], path: String = "", ignoresUnknownFields: Bool = false) {
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

    /// The full path of a field of this object (`caller.id`), as errors name it.
    public func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    /// Records a problem found outside the reader (a rule across fields).
    public mutating func fail(_ error: ValidationError) {
        errors.append(error)
    }

    /// The field's value when present and not `null`; nil otherwise, recording "is required" when
    /// `required`.
    public mutating func raw(_ field: String, required: Bool = false) -> JSONValue? {
        switch object[field] {
        case .none, .null?:
            if required { errors.append(ValidationError(field: name(field), message: "is required")) }
            return nil
        case let value?:
            return value
        }
    }

    /// A string field. Absent or `null` → nil; a missing required field and a non-string are
    /// recorded as errors.
    public mutating func string(_ field: String, required: Bool = false) -> String? {
        guard let value = raw(field, required: required) else { return nil }
        guard case .string(let text) = value else {
            errors.append(ValidationError(field: name(field), message: "must be a string, not \(value.typeName)"))
            return nil
        }
        return text
    }

    /// A boolean field. Absent or `null` → nil; a non-boolean is recorded as an error.
    public mutating func bool(_ field: String) -> Bool? {
        guard let value = raw(field) else { return nil }
        guard case .bool(let flag) = value else {
            errors.append(ValidationError(field: name(field), message: "must be a boolean, not \(value.typeName)"))
            return nil
        }
        return flag
    }

    /// A string field turned into a value by `parse`, which is given the text and the field's full
    /// path to name in its error; that error is recorded and the result is nil.
    public mutating func value<T>(
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

    /// A string field of the body itself parsed by `parse`, whose error names the field on its own.
    public mutating func value<T>(
        _ field: String, required: Bool = false, _ parse: (String) throws(ValidationError) -> T
    ) -> T? {
        value(field, required: required) { text, _ throws(ValidationError) in try parse(text) }
    }

    /// A nested object read by `read`. Its errors, unknown fields included, join this reader's; nil
    /// when absent, not an object, or when `read` returns nil.
    public mutating func object<T>(
        _ field: String, known: [String], required: Bool = false, _ read: (inout JSONObjectReader) -> T?
    ) -> T? {
        guard let value = raw(field, required: required) else { return nil }
        var nested = JSONObjectReader(
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

    /// Whether the field is present with a non-null value.
    public func has(_ field: String) -> Bool {
        switch object[field] {
        case .none, .null?: false
        default: true
        }
    }

    /// Records unknown fields and throws everything collected.
    public mutating func finish() throws(ValidationErrors) {
        recordUnknownFields()
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }

    /// One error per field not in `known`, in name order, each with a "did you mean" when one fits.
    private mutating func recordUnknownFields() {
        // Sorted only when there is something to report: a sorted copy of the keys per object otherwise.
        guard !ignoresUnknownFields, object.keys.contains(where: { !known.contains($0) }) else { return }
        for key in object.keys.sorted() where !known.contains(key) {
            errors.append(
                ValidationError(field: name(key), message: FieldSuggestion.unknownFieldMessage(key, known: known)))
        }
    }
}
