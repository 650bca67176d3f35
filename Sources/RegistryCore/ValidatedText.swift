/// A string wrapper that can only hold a valid value.
///
/// Conforming types get Codable through their validating initialiser, so decoding a stored or
/// received value cannot bypass the rules, and encoding writes the plain string.
public protocol ValidatedText: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The validated (and, where documented, normalised) string.
    var value: String { get }
    init(_ raw: String) throws(ValidationError)
}

extension ValidatedText {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do {
            try self.init(raw)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    public var description: String { value }
}
