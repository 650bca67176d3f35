import Postgres
import RegistryCore
import TestSupport
import Testing

@testable import Store

/// A batch that runs into the statement timeout fails as a whole, at once: re-running its items
/// one by one would hold the single write connection for up to one timeout per item.
@Suite("Batch timeouts")
struct BatchTimeoutTests {
    @Test func aBatchThatTimesOutFailsEveryItemWithoutReRunningThem() async throws {
        try await TestDatabase.withPool("batch-timeout") {
            $0.poolSize = 2
            $0.statementTimeout = .milliseconds(300)
        } _: { pool in
            _ = try await pool.withConnection {
                try $0.query("INSERT INTO providers (name, service, topic) VALUES ('ios', 'apns', 'com.example.app')")
            }
            let operations = try ["blocked", "free-1", "free-2"].enumerated().map { index, user in
                WriteOperation.register(
                    try DeviceRegistration(
                        userID: UserID(user), provider: ProviderName("ios"),
                        token: PushToken(type: .apns, raw: String(repeating: "\(index + 1)", count: 64))),
                    userDeviceCap: 25)
            }
            // The batch waits for this user's lock past its statement timeout.
            let gate = try await Gate.close(pool, key: "blocked")
            let outcome = await Result.of {
                try await pool.withConnection { connection in
                    try WriteOperation.runTogether(operations, on: connection, retryUntil: .now + .seconds(5))
                }
            }
            try await gate.open()
            #expect(throws: PipelineFailure.self) { try outcome.get() }
            if case .failure(let failure as PipelineFailure) = outcome {
                #expect(failure.error == .deadlineExceeded)
            }
            let stored = try await pool.withConnection { try $0.query("SELECT count(*)::int AS n FROM devices").rows }
            #expect(try stored[0].int("n") == 0, "no item was re-run alone")
        }
    }

    @Test func aReRunOneByOneStopsAtItsDeadlineWithoutSendingTheRest() async throws {
        try await GroupCommitTests.withPool { pool in
            let operations = try (1...3).map { n in
                WriteOperation.register(
                    try DeviceRegistration(
                        userID: UserID("user-\(n)"), provider: ProviderName("ios"),
                        token: PushToken(type: .apns, raw: String(repeating: "\(n)", count: 64))),
                    userDeviceCap: 25)
            }
            let late = try await pool.withConnection { connection in
                WriteOperation.oneByOne(operations, on: connection, until: .now - .milliseconds(1))
            }
            for outcome in late {
                #expect {
                    try outcome.get()
                } throws: { error in
                    if case RegistryError.unavailable = error { true } else { false }
                }
            }
            #expect(try await GroupCommitTests.table(pool).isEmpty, "nothing was sent past the deadline")
            let inTime = try await pool.withConnection { connection in
                WriteOperation.oneByOne(operations, on: connection, until: .now + .seconds(5))
            }
            #expect(inTime.allSatisfy { (try? $0.get()) != nil })
        }
    }
}
