import Encodings
import RegistryCrypto

/// One numbered schema change, applied once, inside a transaction.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// Hex SHA-256 of `sql`, recorded when applied; a file edited afterwards no longer matches.
    public var checksum: String { Hex.encode(SHA256.hash(sql)) }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
