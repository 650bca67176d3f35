/// One reason an input was refused, named by the JSON field (or query parameter) it came from.
///
/// The HTTP layer renders a list of these as a 422 problem+json `errors: [{field, message}]`, so
/// `message` is written for the client developer: it says what is expected, not what went wrong
/// inside the server.
public struct ValidationError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
