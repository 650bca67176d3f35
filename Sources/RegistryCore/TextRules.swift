/// Character rules shared by the free-text identifiers (user id, device id, platform, …) and by
/// the text fields of other targets' bodies (call events).
public enum TextRules {
    /// True when `text` has a C0 control (U+0000–U+001F), DEL (U+007F) or a C1 control
    /// (U+0080–U+009F): invisible, they break logs and terminals, and are never part of a
    /// legitimate identifier or name. Other characters, whitespace and format characters included,
    /// are the caller's to judge.
    public static func containsControlCharacter(_ text: String) -> Bool {
        // Bytes first: most identifiers are ASCII, and then a C1 control cannot occur.
        var isASCII = true
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return true }
            if byte >= 0x80 { isASCII = false }
        }
        return !isASCII && text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }
    }

    static func isBlank(_ text: String) -> Bool {
        // Bytes first: one ASCII byte that is not whitespace (U+0009–U+000D, U+0020) settles it
        // without looking up Unicode properties, which is every real identifier.
        for byte in text.utf8 where byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte) { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }

    /// The length JSON Schema's `maxLength` counts: Unicode code points, not grapheme clusters
    /// (an emoji with a skin tone is one `Character` but two code points).
    static func length(_ text: String) -> Int { text.unicodeScalars.count }

    /// Checks the length in code points and that there are no control characters.
    static func checkLabel(_ raw: String, field: String, maxLength: Int) throws(ValidationError) {
        let count = length(raw)
        guard count >= 1, count <= maxLength else {
            throw ValidationError(field: field, message: "must be 1–\(maxLength) characters long")
        }
        guard !containsControlCharacter(raw) else {
            throw ValidationError(field: field, message: "must not contain control characters")
        }
        guard !isBlank(raw) else {
            throw ValidationError(field: field, message: "must not be only whitespace")
        }
    }
}

/// A set of ASCII characters, tested on UTF-8 bytes: no byte of a non-ASCII character is ever in
/// it, so a text passes only when it is all ASCII and all in the set.
public struct ASCIISet: Sendable {
    @usableFromInline var mask: (low: UInt64, high: UInt64) = (0, 0)

    /// The set of `characters`, which must all be ASCII.
    public init(_ characters: String) {
        for byte in characters.utf8 {
            precondition(byte < 0x80, "ASCIISet takes ASCII characters only")
            if byte < 64 { mask.low |= 1 << byte } else { mask.high |= 1 << (byte - 64) }
        }
    }

    /// Whether the UTF-8 byte `byte` is in the set; false for every byte of a non-ASCII character.
    @inlinable public func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? mask.low & (1 << byte) != 0 : byte < 128 && mask.high & (1 << (byte - 64)) != 0
    }

    /// Whether every character of `text` is in the set (true for an empty text).
    /// A loop rather than `allSatisfy(contains)`: the partially applied method is a closure
    /// allocated on every call, and this runs on every field of every registration. Inlinable, so
    /// that a caller in another module gets it for its own string type: unspecialized, each byte
    /// went through a generic iterator (0.7–2 % of the push job's CPU, checking APNs tokens).
    @inlinable public func containsAll(_ text: some StringProtocol) -> Bool {
        for byte in text.utf8 where !contains(byte) { return false }
        return true
    }

    /// This set with the ASCII `characters` added.
    public func union(_ characters: String) -> ASCIISet {
        var union = self
        let other = ASCIISet(characters)
        union.mask = (mask.low | other.mask.low, mask.high | other.mask.high)
        return union
    }

    public static let lowercaseDigits = ASCIISet("abcdefghijklmnopqrstuvwxyz0123456789")
    public static let letters = ASCIISet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    public static let alphanumerics = letters.union("0123456789")
    public static let hexDigits = ASCIISet("0123456789abcdefABCDEF")
    /// FCM registration tokens, and tokens named in feedback.
    public static let fcmToken = alphanumerics.union("-_:.")
}
