import Foundation
import Postgres
import RegistryCore
import TestSupport
import Testing

@testable import Store

/// A ring's claim and device read are one transaction on a connection of the pool's urgent line:
/// while a push job's statements hold every connection, a ring goes before the job's statements
/// that wait, instead of queueing behind them for its devices.
@Suite("Ring claim")
struct RingClaimTests {
    @Test func aRingsClaimAndDeviceReadGoBeforeStatementsWaitingInTheNormalLine() async throws {
        try await TestDatabase.withPool("ring-claim") {
            $0.poolSize = 1
            $0.statementTimeout = .seconds(30)
            $0.poolWaitTimeout = .seconds(30)
        } _: { pool in
            let store = CallEventStore(pool: pool)
            // The job's statement holding the pool's only connection waits in PostgreSQL for this lock.
            let gate = try await Gate.close(pool, key: "job")
            let holding = Task {
                try await pool.withConnection {
                    _ = try $0.query("SELECT pg_advisory_xact_lock(hashtextextended('job', 0))")
                }
            }
            try await TestSupport.waitUntil("the job's statement waits for the lock") {
                try await gate.pool.withConnection {
                    try $0.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                        .rows[0]["n"] == "1"
                }
            }
            let queued = Task {
                try await pool.withConnection {
                    try $0.query("SELECT count(*) AS n FROM call_events WHERE id = 'ring'").rows[0]["n"]
                }
            }
            try await TestSupport.waitUntil("the next job statement waits for the connection") {
                pool.statistics.waiting == 1
            }
            let ring = Task {
                try await store.claimReadingDevices(
                    id: "ring", digest: String(repeating: "a", count: 64), type: "call.ring",
                    deadline: Date().addingTimeInterval(60), of: [try UserID("callee")])
            }
            try await TestSupport.waitUntil("the ring waits for the connection") { pool.statistics.waiting == 2 }

            try await gate.open()

            let answered = try await ring.value
            guard case .claimed(let row) = answered.claim else { throw TestSupportError("the ring was not claimed") }
            #expect(row.id == "ring")
            #expect(answered.devices.isEmpty)
            try await answered.committed.value
            #expect(try await queued.value == "1", "the ring's claim ran before the job's waiting statement")
            try await holding.value
        }
    }
}
