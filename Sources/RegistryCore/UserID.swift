/// The application's id for a user: opaque to us, so it is stored exactly as given (no trimming,
/// no case folding — two spellings are two users).
///
/// Rules: 1–255 bytes of UTF-8 (the bound is in bytes because that is what indexes and the wire
/// pay for), no control characters (C0, DEL, C1), and not only whitespace — a blank id is always a
/// client bug, never a real user. JSON field `user_id`.
public struct UserID: ValidatedText {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        try self.init(raw, field: "user_id")
    }

    public init(_ raw: String, field: String) throws(ValidationError) {
        guard !raw.isEmpty, raw.utf8.count <= 255 else {
            throw ValidationError(field: field, message: "must be 1–255 bytes of UTF-8")
        }
        guard !TextRules.containsControlCharacter(raw) else {
            throw ValidationError(field: field, message: "must not contain control characters")
        }
        guard !TextRules.isBlank(raw) else {
            throw ValidationError(field: field, message: "must not be only whitespace")
        }
        value = raw
    }
}
