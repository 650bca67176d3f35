import Foundation

/// One row in text format: a view of its result's cells (`ResultCells`), which also know the
/// columns' names.
public struct PostgresRow: Sendable {
    let cells: ResultCells
    let row: Int

    /// The column's text, or nil for SQL NULL and for a column the row does not have.
    public subscript(_ column: String) -> String? {
        cells.field(named: column).flatMap { field in
            cells.withBytes(row: row, field: field) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Throws `.decoding` when the column is NULL or missing.
    public func string(_ column: String) throws -> String {
        try withValue(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// `string(column)`, but `known` itself when the column holds exactly its text: a value just
    /// written and read back (a registration's token and user) costs no new String.
    public func string(_ column: String, reusing known: String?) throws -> String {
        guard var known else { return try string(column) }
        return try withValue(column) { bytes in
            let same = known.withUTF8 { knownBytes in
                knownBytes.count == bytes.count
                    && (bytes.isEmpty || memcmp(knownBytes.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
            return same ? known : String(decoding: bytes, as: UTF8.self)
        }
    }

    public func int(_ column: String) throws -> Int {
        let text = try string(column)
        guard let value = Int(text) else { throw PostgresError.decoding("column \(column) is not an integer") }
        return value
    }

    public func bool(_ column: String) throws -> Bool {
        switch try string(column) {
        case "t": return true
        case "f": return false
        default: throw PostgresError.decoding("column \(column) is not a boolean")
        }
    }

    /// A `timestamptz`; the pool sets TimeZone=UTC, and microseconds are kept. Parsed where the
    /// bytes are: no String per timestamp.
    public func date(_ column: String) throws -> Date {
        guard let date = try withValue(column, PostgresTimestamp.parse(utf8:)) else {
            throw PostgresError.decoding("column \(column) is not a timestamp")
        }
        return date
    }

    /// nil for SQL NULL; still throws for a missing column.
    public func optionalDate(_ column: String) throws -> Date? {
        guard let field = cells.field(named: column) else { throw PostgresError.decoding("no column \(column)") }
        return cells.isNull(row: row, field: field) ? nil : try date(column)
    }

    /// A one-dimensional `text[]` without NULL elements.
    public func stringArray(_ column: String) throws -> [String] {
        guard let elements = PostgresArrayLiteral.parse(try string(column)) else {
            throw PostgresError.decoding("column \(column) is not a text array without NULLs")
        }
        return elements
    }

    /// `body` on the column's bytes; throws `.decoding` when the column is NULL or missing.
    private func withValue<R>(_ column: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        guard let field = cells.field(named: column) else { throw PostgresError.decoding("no column \(column)") }
        guard let value = try cells.withBytes(row: row, field: field, body) else {
            throw PostgresError.decoding("column \(column) is NULL")
        }
        return value
    }
}
