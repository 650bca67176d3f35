extension JSONValue {
    /// The value when it is a string; nil for any other type. For reading JSON whose shape is
    /// someone else's (push service answers), where a wrong type means "absent".
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var numberValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }
}
