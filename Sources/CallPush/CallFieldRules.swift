import Encodings
import Foundation
import RegistryCore

/// The checks shared by the text fields of a call event, each throwing an error that names the
/// field and says what is expected.
enum CallFieldRules {
    /// Ids (event, call, caller): UserID's rules — 1–255 bytes, no control characters, not blank —
    /// since they are opaque ids of the same kind, chosen by the same backends.
    static func id(_ raw: String, field: String) throws(ValidationError) -> String {
        _ = try UserID(raw, field: field)
        return raw
    }

    /// Free text shown to a person (display names): at most `maxLength` characters and no
    /// control characters. Empty means "not given", as Stream and DialStack send it.
    static func text(_ raw: String, field: String, maxLength: Int = 255) throws(ValidationError) -> String? {
        guard raw.count <= maxLength else {
            throw ValidationError(field: field, message: "must be at most \(maxLength) characters long")
        }
        guard !TextRules.containsControlCharacter(raw) else {
            throw ValidationError(field: field, message: "must not contain control characters")
        }
        return raw.isEmpty ? nil : raw
    }

    /// A Stream call type (`default`, `audio_room`): it becomes the first half of `call_cid`
    /// (`<type>:<id>`), so no `:` and nothing a client would have to escape.
    static func callType(_ raw: String, field: String) throws(ValidationError) -> String {
        guard (1...64).contains(raw.utf8.count), callTypeCharacters.containsAll(raw) else {
            throw ValidationError(field: field, message: "must be 1–64 letters, digits, '_' or '-' (e.g. default)")
        }
        return raw
    }

    private static let callTypeCharacters = ASCIISet.alphanumerics.union("_-")

    /// An RFC 3339 timestamp (`2026-04-10T14:30:00Z`, any offset, optional fraction).
    static func timestamp(_ raw: String, field: String) throws(ValidationError) -> Date {
        guard let date = RFC3339.parse(raw) else {
            throw ValidationError(field: field, message: "must be an RFC 3339 timestamp like 2026-04-10T14:30:00Z")
        }
        return date
    }

    /// An absolute `https://` or `http://` URL of at most 2048 bytes, without spaces.
    static func url(_ raw: String, field: String) throws(ValidationError) -> String {
        guard isURI(raw, schemes: ["https://", "http://"], maxBytes: 2048) else {
            throw ValidationError(field: field, message: "must be an absolute http(s) URL of at most 2048 bytes")
        }
        return raw
    }

    /// `local@domain`, at most 254 bytes, without spaces: enough to catch a value put in the wrong
    /// field; the app, not us, decides what to do with it.
    static func email(_ raw: String, field: String) throws(ValidationError) -> String {
        let parts = raw.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, raw.utf8.count <= 254,
            !containsSpaceOrControl(raw)
        else {
            throw ValidationError(field: field, message: "must be an email address like jane@example.com")
        }
        return raw
    }

    /// `sip:` or `sips:` and something after it, at most 255 bytes, without spaces.
    static func sipURI(_ raw: String, field: String) throws(ValidationError) -> String {
        guard isURI(raw, schemes: ["sip:", "sips:"], maxBytes: 255) else {
            throw ValidationError(field: field, message: "must be a SIP URI like sip:john@example.com")
        }
        return raw
    }

    /// One of `schemes` (any case) and something after it, at most `maxBytes`, without spaces.
    private static func isURI(_ raw: String, schemes: [String], maxBytes: Int) -> Bool {
        let lowered = raw.lowercased()
        guard let scheme = schemes.first(where: { lowered.hasPrefix($0) }) else { return false }
        return raw.utf8.count > scheme.utf8.count && raw.utf8.count <= maxBytes && !containsSpaceOrControl(raw)
    }

    private static func containsSpaceOrControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.isWhitespace } || TextRules.containsControlCharacter(text)
    }
}
