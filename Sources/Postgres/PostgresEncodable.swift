import Foundation

/// A value sent as a text-format parameter (`$1`, `$2`, …). The server parses it, so SQL is never
/// built by interpolation. `nil` means SQL NULL. Text cannot carry NUL characters; PostgreSQL
/// refuses them in `text` anyway.
public protocol PostgresEncodable: Sendable {
    var postgresText: String? { get }
}

extension String: PostgresEncodable {
    public var postgresText: String? { self }
}

extension Int: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresEncodable {
    public var postgresText: String? { self ? "t" : "f" }
}

extension Date: PostgresEncodable {
    /// RFC 3339 in UTC with microseconds, the precision of `timestamptz`.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    /// An array literal (`text[]`, or any type the server casts it to); every element is quoted,
    /// so commas, quotes and braces survive, and a nil element is NULL.
    ///
    /// Reached through `any PostgresEncodable`, this getter runs unspecialized: a key path or a
    /// witness call per element cost more than writing the literal (3.5% of the service's CPU
    /// per registration, the group commit's nine columns). The arrays the store sends are of
    /// strings, so those are recognised by their type and written directly.
    public var postgresText: String? {
        if Element.self == String.self {
            return PostgresArrayLiteral.format(nonNull: unsafeBitCast(self, to: [String].self))
        }
        if Element.self == String?.self {
            return PostgresArrayLiteral.format(unsafeBitCast(self, to: [String?].self))
        }
        return PostgresArrayLiteral.format(map { $0.postgresText })
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresText: String? { self?.postgresText ?? nil }
}

/// One statement with its `$n` parameters, as pipelines and batches take them.
public typealias PostgresStatement = (sql: String, parameters: [(any PostgresEncodable)?])
