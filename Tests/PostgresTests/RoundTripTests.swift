import Foundation
import Postgres
import Testing

@Suite struct RoundTripTests {
    @Test func awkwardStringsComeBackExactly() async throws {
        let values = [
            "it's \"quoted\"", #"back\slash \\ \n"#, "emoji 👩‍👩‍👧‍👦🚀", "中文 日本語 한국어", "עברית العربية",
            "$1 ; DROP TABLE x; --", "", " leading and trailing ", "tab\tnewline\ncarriage\r",
            String(repeating: "0123456789abcdef", count: 65_536),  // 1 MiB
        ]
        let echoed = try await withPool { pool in
            try await pool.withConnection { connection in
                try values.map { try connection.query("SELECT $1::text AS value", [$0]).rows[0].string("value") }
            }
        }
        #expect(echoed == values)
    }

    @Test func arraysWithSeparatorsComeBackExactly() async throws {
        let arrays: [[String]] = [
            [], [""], ["a,b", "{c}", "\"d\"", #"e\f"#, "NULL", "null", " g ", "h i"], ["👍", "中", "ש"],
        ]
        let echoed = try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.execute("CREATE TABLE t (id int PRIMARY KEY, tags text[] NOT NULL)")
                for (id, tags) in arrays.enumerated() {
                    _ = try connection.query("INSERT INTO t VALUES ($1, $2)", [id, tags])
                }
                return try connection.query("SELECT tags FROM t ORDER BY id").rows.map { try $0.stringArray("tags") }
            }
        }
        #expect(echoed == arrays)
    }

    @Test func scalarsNullsAndDates() async throws {
        let date = Date(timeIntervalSince1970: 1_714_979_289.123456)
        let row = try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.query(
                    """
                    SELECT $1::bigint AS big, $2::int AS small, $3::boolean AS yes, $4::boolean AS no,
                           $5::timestamptz AS at, $6::timestamptz AS never, $7::text AS nothing,
                           '2001-02-03 04:05:06.7+02'::timestamptz AS literal
                    """,
                    [Int64.max, Int32.min, true, false, date, Date?.none, String?.none]
                ).rows[0]
            }
        }
        #expect(try row.int("big") == Int.max)
        #expect(try row.int("small") == Int(Int32.min))
        #expect(try row.bool("yes") && !row.bool("no"))
        #expect(abs(try row.date("at").timeIntervalSince(date)) < 0.000_001)
        #expect(try row.optionalDate("never") == nil)
        #expect(row["nothing"] == nil)
        let literal = try #require(try row.optionalDate("literal"))
        #expect(abs(literal.timeIntervalSince1970 - 981_165_906.7) < 0.000_001)
        #expect(throws: PostgresError.decoding("column nothing is NULL")) { try row.string("nothing") }
        #expect(throws: PostgresError.self) { try row.string("missing") }
    }

    @Test func affectedRowsCountsWrites() async throws {
        let counts = try await withPool { pool in
            try await pool.withConnection { connection in
                try connection.execute("CREATE TABLE t (n int)")
                let inserted = try connection.query("INSERT INTO t SELECT generate_series(1, 5)").affectedRows
                let updated = try connection.query("UPDATE t SET n = n + 1 WHERE n > $1", [2]).affectedRows
                return [inserted, updated]
            }
        }
        #expect(counts == [5, 3])
    }
}
