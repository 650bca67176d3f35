/// A point in PostgreSQL's write-ahead log, in bytes since `0/0`. A replica that has replayed up
/// to a position shows every transaction whose commit record ends at or before it, so a position
/// read after a commit returned is one that a replica must reach to show that commit.
public struct WALPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    public static let zero = WALPosition(bytes: 0)

    public let bytes: UInt64

    public init(bytes: UInt64) { self.bytes = bytes }

    /// PostgreSQL's text form (`pg_lsn`): two hexadecimal numbers of one to eight digits each,
    /// `16/B374D848`. Nil for anything else.
    public init?(_ text: some StringProtocol) {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(\.isHexDigit) }),
            let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16)
        else { return nil }
        bytes = high << 32 | low
    }

    public var description: String {
        String(bytes >> 32, radix: 16, uppercase: true) + "/" + String(bytes & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    public static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.bytes < rhs.bytes }

    /// The primary's WAL insert position. Read after a commit has returned, it is at or past the
    /// end of that commit's record, whatever `synchronous_commit` says (the flush position may
    /// trail a commit that did not wait for its flush).
    static let insertPositionSQL = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::int8 AS lsn"

    /// The primary's insert position, read on `connection`.
    static func insertPosition(on connection: PostgresConnection) throws -> WALPosition {
        WALPosition(bytes: UInt64(try connection.query(insertPositionSQL).rows[0].int("lsn")))
    }
}
