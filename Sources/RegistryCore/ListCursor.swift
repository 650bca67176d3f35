import Encodings

/// Where the next page of an admin listing starts: the last row id of the previous page, as an
/// opaque url-safe string (base64url of `v1:<id>`, no padding). Opaque so clients do not build
/// cursors themselves; versioned so the encoding can change without breaking old links.
public struct ListCursor: Sendable, Hashable, CustomStringConvertible {
    /// The last row id already returned; the next page has ids greater than this.
    public let lastID: Int64

    public init(lastID: Int64) {
        self.lastID = lastID
    }

    /// Decodes a cursor from a client. Anything but a cursor this server produced fails with a
    /// `cursor` error (re-encoding must give back the same string, so there is one spelling).
    public init(_ raw: String, field: String = "cursor") throws(ValidationError) {
        let error = ValidationError(
            field: field,
            message: "is not a cursor returned by this API; pass next_cursor from the previous page unchanged")
        guard let bytes = Base64URL.decode(raw), let text = String(validating: bytes, as: UTF8.self),
            text.hasPrefix("v1:"), let id = Int64(text.dropFirst(3)), id >= 0
        else { throw error }
        let cursor = ListCursor(lastID: id)
        guard cursor.encoded == raw else { throw error }
        self = cursor
    }

    /// The string to hand to clients as `next_cursor`.
    public var encoded: String { Base64URL.encode(Array("v1:\(lastID)".utf8)) }

    public var description: String { encoded }
}
