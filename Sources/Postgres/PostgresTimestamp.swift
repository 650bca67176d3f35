import Encodings
import Foundation

/// `timestamptz` text in and out, through the one RFC 3339 codec: PostgreSQL's ISO output is RFC
/// 3339 but for how it writes offsets (`+00`, `+05:30`).
enum PostgresTimestamp {
    /// `2024-05-06T07:08:09.123456Z`: UTC, microseconds.
    static func format(_ date: Date) -> String {
        RFC3339.format(date)
    }

    /// The server's output (`2024-05-06 07:08:09.123456+00`) or RFC 3339; nil for anything else,
    /// `infinity` included.
    static func parse(_ text: String) -> Date? {
        RFC3339.parse(text, offsets: .postgres)
    }

    /// `parse` on the text's bytes.
    static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        RFC3339.parse(utf8: bytes, offsets: .postgres)
    }
}
