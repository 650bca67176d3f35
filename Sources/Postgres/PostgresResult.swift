import CLibPQ

public struct PostgresResult: Sendable {
    public var rows: [PostgresRow]
    /// Rows inserted, updated, deleted or selected; 0 for other commands.
    public var affectedRows: Int

    public init(rows: [PostgresRow], affectedRows: Int) {
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// Copies a successful libpq result; the caller still clears it.
    init(copying result: OpaquePointer) {
        let fieldCount = PQnfields(result)
        var columns: [String: Int] = [:]
        for field in 0..<fieldCount where columns[String(cString: PQfname(result, field))] == nil {
            columns[String(cString: PQfname(result, field))] = Int(field)
        }
        rows = (0..<PQntuples(result)).map { row in
            PostgresRow(
                columns: columns,
                values: (0..<fieldCount).map { field in
                    PQgetisnull(result, row, field) == 1 ? nil : String(cString: PQgetvalue(result, row, field))
                })
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}
