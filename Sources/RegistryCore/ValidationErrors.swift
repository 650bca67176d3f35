/// Every problem found in one input, so a client can fix them all in one round trip.
///
/// Parsers collect into this instead of stopping at the first mistake. It is never thrown empty.
public struct ValidationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ValidationError]

    public init(_ errors: [ValidationError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "; ") }
}
