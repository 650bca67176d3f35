import CLibPQ

/// A result's cells, copied out of libpq into one buffer per result, not a String per cell (a
/// group-commit batch's answer made about a fifth of a registration's allocations that way, most
/// of them for cells nobody read or read only to parse a timestamp). A row's values become
/// Strings only when asked for.
final class ResultCells: Sendable {
    /// A cell's bytes in `bytes`; `start < 0` for SQL NULL.
    struct Cell {
        let start: Int32
        let end: Int32
    }

    /// Each field's column name, in field order. Found by a scan (`field(named:)`), not through
    /// a name → position map: a result has a few columns, each read about once, and hashing
    /// every name into a map per result cost more than the scans (a device read's map was ~1.5%
    /// of the service's CPU per `POST /v1/push`).
    let names: [String]
    let rowCount: Int
    let fieldCount: Int
    let bytes: [UInt8]
    /// Row-major: row `r`'s field `f` is `cells[r * fieldCount + f]`.
    let cells: [Cell]

    init(names: [String], rowCount: Int, fieldCount: Int, bytes: [UInt8], cells: [Cell]) {
        self.names = names
        self.rowCount = rowCount
        self.fieldCount = fieldCount
        self.bytes = bytes
        self.cells = cells
    }

    /// Copies a successful libpq result's cells; the caller still clears it.
    convenience init(copying result: OpaquePointer) {
        let fieldCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let names = (0..<fieldCount).map { String(cString: PQfname(result, $0)) }
        var length = 0
        for row in 0..<rowCount {
            for field in 0..<fieldCount { length += Int(PQgetlength(result, row, field)) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var cells: [Cell] = []
        cells.reserveCapacity(Int(rowCount) * Int(fieldCount))
        for row in 0..<rowCount {
            for field in 0..<fieldCount {
                guard PQgetisnull(result, row, field) == 0 else {
                    cells.append(Cell(start: -1, end: -1))
                    continue
                }
                let start = Int32(bytes.count)
                let value = UnsafeRawPointer(PQgetvalue(result, row, field)!).assumingMemoryBound(to: UInt8.self)
                bytes.append(contentsOf: UnsafeBufferPointer(start: value, count: Int(PQgetlength(result, row, field))))
                cells.append(Cell(start: start, end: Int32(bytes.count)))
            }
        }
        self.init(names: names, rowCount: Int(rowCount), fieldCount: Int(fieldCount), bytes: bytes, cells: cells)
    }

    /// The position of column `name` (the first, when names repeat).
    func field(named name: String) -> Int? {
        names.firstIndex(of: name)
    }

    func isNull(row: Int, field: Int) -> Bool {
        cells[row * fieldCount + field].start < 0
    }

    /// `body` on the cell's bytes; nil for SQL NULL.
    func withBytes<R>(row: Int, field: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let cell = cells[row * fieldCount + field]
        guard cell.start >= 0 else { return nil }
        return try bytes.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[Int(cell.start)..<Int(cell.end)]))
        }
    }
}
