import RegistryCore

/// A phone number in E.164: `+`, a country code not starting with 0, at most 15 digits in all
/// (`+14155551234`). Dialers and CallKit handles compare numbers as text, so one spelling only:
/// no spaces, dashes or brackets.
public struct PhoneNumber: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(_ raw: String, field: String) throws(ValidationError) {
        let bytes = Array(raw.utf8)
        let digits = bytes.dropFirst()
        guard bytes.first == UInt8(ascii: "+"), (2...15).contains(digits.count),
            digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw ValidationError(
                field: field, message: "must be an E.164 phone number like +14155551234: '+' and 2–15 digits, no spaces"
            )
        }
        value = raw
    }

    public var description: String { value }
}
