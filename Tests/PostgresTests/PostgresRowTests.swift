import Foundation
import Testing

@testable import Postgres

/// Rows read their values out of their result's one buffer of cells.
@Suite struct PostgresRowTests {
    let row = PostgresRow(
        columns: ["name": 0, "empty": 1, "gone": 2, "at": 3, "count": 4, "flag": 5, "tags": 6],
        values: ["ünïcode", "", nil, "2024-02-29 23:59:59.123456+00", "42", "t", "{a,b}"])

    @Test func valuesAreReadBackAsWritten() throws {
        #expect(row["name"] == "ünïcode")
        #expect(row["empty"] == "")
        #expect(try row.int("count") == 42)
        #expect(try row.bool("flag"))
        #expect(try row.stringArray("tags") == ["a", "b"])
        #expect(PostgresTimestamp.format(try row.date("at")) == "2024-02-29T23:59:59.123456Z")
        #expect(PostgresTimestamp.format(try #require(try row.optionalDate("at"))) == "2024-02-29T23:59:59.123456Z")
    }

    @Test func nullAndMissingColumnsAreTold() throws {
        #expect(row["gone"] == nil)
        #expect(row["missing"] == nil)
        #expect(try row.optionalDate("gone") == nil)
        #expect(throws: PostgresError.decoding("column gone is NULL")) { try row.string("gone") }
        #expect(throws: PostgresError.decoding("no column missing")) { try row.optionalDate("missing") }
        #expect(throws: PostgresError.decoding("column empty is not a timestamp")) { try row.date("empty") }
    }
}
