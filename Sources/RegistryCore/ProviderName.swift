/// The name an operator gives a configured push provider (e.g. `ios-prod`, `android`).
///
/// `^[a-z0-9][a-z0-9._-]{0,62}$`: safe in URLs, metrics labels and logs without escaping.
/// Uppercase is refused rather than folded so that the name a client sends is the name stored.
public struct ProviderName: ValidatedText, Comparable {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        try self.init(raw, field: "provider")
    }

    /// `field` is `provider` on device registrations and `name` on the provider admin API.
    public init(_ raw: String, field: String) throws(ValidationError) {
        let valid =
            (1...63).contains(raw.utf8.count) && ASCIISet.lowercaseDigits.contains(raw.utf8.first!)
            && ASCIISet.lowercaseDigits.union("._-").containsAll(raw)
        guard valid else {
            throw ValidationError(
                field: field,
                message:
                    "must be 1–63 characters of lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        }
        value = raw
    }

    public static func < (lhs: ProviderName, rhs: ProviderName) -> Bool { lhs.value < rhs.value }
}
