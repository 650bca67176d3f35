/// A device's push token, valid for its type.
///
/// - `apns`/`voip`: hexadecimal, even length, 32–1024 characters, stored lowercase. Apple says
///   tokens are variable length, so 64 is not hard-coded.
/// - `fcm`: 1–4096 characters of `A–Z a–z 0–9 - _ : .`, stored as given (case matters).
///
/// `description` is redacted so a token interpolated into a log line does not leak; use `value`
/// where the full token is needed (storage, sending). JSON field `token`.
public struct PushToken: Sendable, Hashable, CustomStringConvertible {
    public let type: TokenType
    public let value: String

    public init(type: TokenType, raw: String, field: String = "token") throws(ValidationError) {
        self.type = type
        switch type {
        case .apns, .voip: value = try Self.parseAPNs(raw, field: field)
        case .fcm: value = try Self.parseFCM(raw, field: field)
        }
    }

    /// The first 8 characters and an ellipsis: enough to correlate log lines, not enough to send.
    public var redacted: String { Self.redacted(value) }

    public var description: String { "\(type.rawValue):\(redacted)" }

    /// Redacts any string, including one that failed validation and so never became a token.
    public static func redacted(_ raw: String) -> String {
        raw.count <= 8 ? raw : String(raw.prefix(8)) + "…"
    }

    private static let hexHint =
        "hex-encode the token bytes instead, e.g. token.map { String(format: \"%02x\", $0) }.joined()"

    private static func parseAPNs(_ raw: String, field: String) throws(ValidationError) -> String {
        // Data.description changed in iOS 13 from "<abcd 1234 …>" to "{length=32,bytes=0x…}" and
        // the new form elides the middle, so an app that stringifies the Data sends garbage. Some
        // versions print it spaced, "{length = 32, bytes = 0xd3d997af 967d1f43 ... 14af515f }".
        if raw.utf8.first == UInt8(ascii: "{"),
            raw.utf8.lazy.filter({ $0 != UInt8(ascii: " ") }).starts(with: "{length=".utf8)
        {
            throw ValidationError(
                field: field,
                message:
                    "looks like NSData.description output ({length=…,bytes=0x…}), which is truncated and is not the token; \(hexHint)"
            )
        }
        if raw.hasPrefix("<"), raw.hasSuffix(">") {
            throw ValidationError(
                field: field,
                message: "looks like the old NSData.description format (<abcd 1234 …>); \(hexHint)"
            )
        }
        let length = raw.utf8.count
        guard (32...1024).contains(length), length % 2 == 0, ASCIISet.hexDigits.containsAll(raw) else {
            throw ValidationError(field: field, message: "must be 32–1024 hexadecimal characters with an even length")
        }
        return raw.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) })
            ? raw.lowercased() : raw
    }

    private static func parseFCM(_ raw: String, field: String) throws(ValidationError) -> String {
        guard (1...4096).contains(raw.utf8.count), ASCIISet.fcmToken.containsAll(raw) else {
            throw ValidationError(
                field: field,
                message: "must be 1–4096 characters of letters, digits, '-', '_', ':' or '.'"
            )
        }
        return raw
    }
}
