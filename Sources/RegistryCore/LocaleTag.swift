/// The device's locale, BCP 47-ish (`en`, `pt-BR`, `zh_Hant_TW`): 1–35 characters of
/// `A–Z a–z 0–9 _ -`, starting with a letter. Both `-` and `_` are accepted because iOS reports
/// `en_US` and Android `en-US`; it is stored as given.
///
/// Named `LocaleTag` rather than `Locale` so it does not shadow `Foundation.Locale` in files that
/// import both. JSON field `locale`.
public struct LocaleTag: ValidatedText {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        guard (1...35).contains(raw.utf8.count), let first = raw.utf8.first, ASCIISet.letters.contains(first),
            ASCIISet.alphanumerics.union("_-").containsAll(raw)
        else {
            throw ValidationError(
                field: "locale",
                message:
                    "must be a BCP 47 language tag like en or pt-BR: 1–35 letters, digits, '-' or '_', starting with a letter"
            )
        }
        value = raw
    }
}
