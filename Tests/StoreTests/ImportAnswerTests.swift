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

    static func rows(_ ords: [Int]) -> [PostgresRow] {
        ords.map {
            PostgresRow(columns: ["ord": 0, "result": 1, "previous_user_id": 2], values: ["\($0)", "created", nil])
        }
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
