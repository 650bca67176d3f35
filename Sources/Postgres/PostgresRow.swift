import Foundation

/// One row in text format. Column names map to positions once per result, shared by its rows.
public struct PostgresRow: Sendable {
    let columns: [String: Int]
    let values: [String?]

    /// The column's text, or nil for SQL NULL and for a column the row does not have.
    public subscript(_ column: String) -> String? {
        columns[column].flatMap { values[$0] }
    }

    /// Throws `.decoding` when the column is NULL or missing.
    public func string(_ column: String) throws -> String {
        guard let position = columns[column] else { throw PostgresError.decoding("no column \(column)") }
        guard let value = values[position] else { throw PostgresError.decoding("column \(column) is NULL") }
        return value
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

    /// A `timestamptz`; the pool sets TimeZone=UTC, and microseconds are kept.
    public func date(_ column: String) throws -> Date {
        guard let date = PostgresTimestamp.parse(try string(column)) else {
            throw PostgresError.decoding("column \(column) is not a timestamp")
        }
        return date
    }

    /// nil for SQL NULL; still throws for a missing column.
    public func optionalDate(_ column: String) throws -> Date? {
        guard let position = columns[column] else { throw PostgresError.decoding("no column \(column)") }
        return values[position] == nil ? nil : try date(column)
    }

    /// A one-dimensional `text[]` without NULL elements.
    public func stringArray(_ column: String) throws -> [String] {
        guard let elements = PostgresArrayLiteral.parse(try string(column)) else {
            throw PostgresError.decoding("column \(column) is not a text array without NULLs")
        }
        return elements
    }
}
