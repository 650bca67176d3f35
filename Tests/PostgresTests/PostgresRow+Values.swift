@testable import Postgres

extension PostgresRow {
    /// A row of its own, for tests of the code that reads rows: one result of one row, its
    /// cells laid out as `ResultCells(copying:)` lays out libpq's.
    init(columns: [String: Int], values: [String?]) {
        var bytes: [UInt8] = []
        var cells: [ResultCells.Cell] = []
        for value in values {
            guard let value else {
                cells.append(ResultCells.Cell(start: -1, end: -1))
                continue
            }
            let start = Int32(bytes.count)
            bytes += value.utf8
            cells.append(ResultCells.Cell(start: start, end: Int32(bytes.count)))
        }
        var names = [String](repeating: "", count: values.count)
        for (name, field) in columns { names[field] = name }
        self.init(
            cells: ResultCells(names: names, rowCount: 1, fieldCount: values.count, bytes: bytes, cells: cells),
            row: 0)
    }
}
