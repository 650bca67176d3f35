import RegistryCore
import Testing

@testable import Postgres
@testable import Store

/// `import_devices()` answers one row per record, in order; an answer that does not is a fault of
/// ours (500) for the whole batch, never a crash and never a result pinned on the wrong line.
@Suite("Import answers")
struct ImportAnswerTests {
    static let records = try! (1...3).map { n in
        try DeviceRegistration(
            userID: UserID("user-\(n)"), provider: ProviderName("ios"),
            token: PushToken(type: .apns, raw: String(repeating: "\(n)", count: 64)))
    }

    /// `import_devices()`'s answer as one result: per row its `ord`, `created` and no previous user.
    static func rows(_ ords: [Int]) -> [PostgresRow] {
        var bytes: [UInt8] = []
        var cells: [ResultCells.Cell] = []
        for ord in ords {
            for text in ["\(ord)", "created"] {
                let start = Int32(bytes.count)
                bytes += text.utf8
                cells.append(ResultCells.Cell(start: start, end: Int32(bytes.count)))
            }
            cells.append(ResultCells.Cell(start: -1, end: -1))  // previous_user_id: NULL
        }
        let result = ResultCells(
            names: ["ord", "result", "previous_user_id"], rowCount: ords.count, fieldCount: 3,
            bytes: bytes, cells: cells)
        return ords.indices.map { PostgresRow(cells: result, row: $0) }
    }

    @Test func rowsInOrderAnswerTheirRecords() throws {
        let outcomes = try DeviceStore.outcomes(of: Self.rows([1, 2, 3]), for: Self.records)
        #expect(outcomes.count == 3)
        for outcome in outcomes { #expect(try outcome.get() == .created) }
    }

    @Test(arguments: [[1, 2], [1, 2, 3, 4], [2, 1, 3], [1, 1, 2]])
    func aShortLongOrMisorderedAnswerFailsTheBatch(ords: [Int]) {
        #expect {
            _ = try DeviceStore.outcomes(of: Self.rows(ords), for: Self.records)
        } throws: { error in
            if case RegistryError.internal = error { true } else { false }
        }
    }
}
