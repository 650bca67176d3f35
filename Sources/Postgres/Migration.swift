import Encodings
import Foundation
import RegistryCrypto

/// One numbered schema change, applied once, inside a transaction unless its first line says
/// `-- migration: no transaction` (see `Migrator`).
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// Hex SHA-256 of `sql`, recorded when applied; a file edited afterwards no longer matches.
    public var checksum: String { Hex.encode(SHA256.hash(sql)) }
    /// False for a file that starts with the marker: `CREATE INDEX CONCURRENTLY` cannot run in a
    /// transaction.
    public var runsInTransaction: Bool {
        sql.prefix { !$0.isNewline }.trimmingCharacters(in: .whitespaces) != Self.noTransactionMarker
    }
    public static let noTransactionMarker = "-- migration: no transaction"

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
