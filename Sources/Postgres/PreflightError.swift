public enum PreflightError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server may lose acknowledged writes on a crash.
    case unsafeDurability(setting: String, value: String)

    public var description: String {
        switch self {
        case .unsafeDurability(let setting, let value):
            return "PostgreSQL has \(setting)=\(value): acknowledged writes can be lost in a crash. "
                + "Fix the server, or allow unsafe durability explicitly (tests only)."
        }
    }
}
