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
        let cells = ResultCells(copying: result)
        rows = (0..<cells.rowCount).map { PostgresRow(cells: cells, row: $0) }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}
