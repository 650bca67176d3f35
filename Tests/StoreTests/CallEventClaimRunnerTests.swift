import Foundation
import NIOConcurrencyHelpers
import Postgres
import TestSupport
import Testing

@testable import Store

/// A ring's claim must not wait behind another ring's batch that is held up: on a busy machine
/// one batch whose pool thread or backend waits for a core held every ring that arrived meanwhile
/// (`CallEventStore.writeRunners`).
@Suite("Call event claim runners")
struct CallEventClaimRunnerTests {
    @Test func aClaimRunsWhileAnotherRingsBatchIsHeld() async throws {
        try await TestDatabase.withPool("claim-runners") {
            $0.poolSize = 4
            // The held claim waits for the gate for as long as a loaded machine takes to claim the other.
            $0.statementTimeout = .seconds(30)
            $0.poolWaitTimeout = .seconds(30)
        } _: { pool in
            let store = CallEventStore(pool: pool)
            let deadline = Date().addingTimeInterval(60)
            let (heldDigest, otherDigest) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
            // claim_call_event() takes this advisory lock: the first ring's batch waits in PostgreSQL.
            let gate = try await Gate.close(pool, key: "call_event:held")
            let heldDone = NIOLockedValueBox(false)
            let held = Task {
                defer { heldDone.withLockedValue { $0 = true } }
                return try await store.claim(id: "held", digest: heldDigest, type: "call.ring", deadline: deadline)
            }
            try await TestSupport.waitUntil("the first ring's claim waits for the lock") {
                try await pool.withConnection {
                    try $0.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                        .rows[0]["n"] == "1"
                }
            }

            let other = try await store.claim(id: "other", digest: otherDigest, type: "call.ring", deadline: deadline)

            #expect(heldDone.withLockedValue { !$0 }, "the other ring was claimed while the first one's batch was held")
            guard case .claimed(let row) = other else { throw TestSupportError("the other ring was not claimed") }
            #expect(row.id == "other")
            try await gate.open()
            guard case .claimed = try await held.value else { throw TestSupportError("the held ring was not claimed") }
        }
    }
}
