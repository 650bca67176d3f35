/// What an update does to one optional field of a record: keeps what is stored (the update did
/// not name it), or sets it. A record created with `.keep` gets the field's default.
public enum FieldChange<Value: Sendable>: Sendable {
    case keep
    case set(Value)

    /// The same change of another value.
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> FieldChange<Other> {
        switch self {
        case .keep: .keep
        case .set(let value): .set(transform(value))
        }
    }

    public var isKept: Bool {
        if case .keep = self { true } else { false }
    }

    /// The value to set; nil when kept.
    public var newValue: Value? {
        switch self {
        case .keep: nil
        case .set(let value): value
        }
    }
}
