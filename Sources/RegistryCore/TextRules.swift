/// Character rules shared by the free-text identifiers (user id, device id, platform, …).
enum TextRules {
    /// C0 controls, DEL and C1 controls: invisible, break logs and terminals, and are never part
    /// of a legitimate identifier.
    static func containsControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }

    /// Checks the length in characters and that there are no control characters.
    static func checkLabel(_ raw: String, field: String, maxLength: Int) throws(ValidationError) {
        let count = raw.count
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

    static func isASCII(_ scalar: Unicode.Scalar, in allowed: String) -> Bool {
        scalar.isASCII && allowed.unicodeScalars.contains(scalar)
    }

    static let lowercaseDigits = "abcdefghijklmnopqrstuvwxyz0123456789"
    static let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    static let alphanumerics = letters + "0123456789"
    static let hexDigits = "0123456789abcdefABCDEF"
}
