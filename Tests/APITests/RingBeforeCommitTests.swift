import CallPush
import Foundation
import NIOConcurrencyHelpers
import Postgres
import PushTestSupport
import TestSupport
import Testing

/// A ring's pushes leave once its claim's statements have answered, while their COMMIT is under
/// way; the webhook is answered only after the COMMIT (every 2xx means committed), a redelivery
/// meanwhile waits for the first claim and never rings twice, and a COMMIT that fails after the
/// pushes left is answered an error, records nothing, and lets a retry ring again
/// (docs/sending-and-ringing.md, "A ring's claim and its push").
@Suite("A ring's push before its COMMIT", .serialized)
struct RingBeforeCommitTests {
    static let secret = "whsec_current"

    func withWebhookServer(_ body: (PushServerSetup) async throws -> Void) async throws {
        let signature = try DialStackSignature(secrets: Self.secret)
        let withPhones = { (setup: PushServerSetup) in
            _ = try await setup.server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await setup.server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            try await CommitGate.install(setup.server.pool)
            try await body(setup)
        }
        try await withMockPushServer(configure: { $0.api.dialStackSignature = signature }, withPhones)
    }

    func deliver(_ server: TestServer, _ body: String) async throws -> TestResponse {
        try await server.request(
            "POST", "/v1/webhooks/dialstack", key: .none, body: body,
            headers: [("X-DialStack-Signature", CallEvents.signature(body, secret: Self.secret))])
    }

    func callEventRows(_ server: TestServer, id: String) async throws -> Int {
        try await server.pool.withConnection { connection in
            try connection.query("SELECT count(*)::int AS n FROM call_events WHERE id = $1", [id]).rows[0].int("n")
        }
    }

    /// Locks PostgreSQL is waiting for: a COMMIT held by the gate, a claim waiting for another's.
    func waitingLocks(_ server: TestServer) async throws -> Int {
        try await server.pool.withConnection { connection in
            try connection.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted").rows[0].int("n")
        }
    }

    @Test func thePushesLeaveBeforeTheCommitAndTheAnswerAndARedeliveryWaitForIt() async throws {
        try await withWebhookServer { setup in
            let server = setup.server
            let gate = try await CommitGate.close(server.pool, id: "evt_gated")
            let body = CallEvents.wakeup("evt_gated")
            let answered = NIOLockedValueBox(false)
            let first = Task {
                defer { answered.withLockedValue { $0 = true } }
                return try await deliver(server, body)
            }
            try await TestSupport.waitUntil("the ring's pushes reached the mock while its COMMIT waits") {
                CallEvents.pushes(setup.mock).count == 2
            }
            #expect(try await callEventRows(server, id: "evt_gated") == 0, "the claim is not committed yet")
            #expect(!answered.withLockedValue { $0 }, "no answer before the COMMIT")

            // DialStack redelivers meanwhile: its claim waits for the first one's transaction.
            let replay = Task { try await deliver(server, body) }
            try await TestSupport.waitUntil("the redelivery's claim waits behind the first") {
                try await waitingLocks(server) == 2
            }
            try await gate.open()

            let answer = try await first.value
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.object?["duplicate"] as? Bool == false)
            let again = try await replay.value
            #expect(again.status == 200, "\(again.body)")
            #expect(again.object?["duplicate"] as? Bool == true)
            #expect(CallEvents.pushes(setup.mock).count == 2, "rung once")
            try await TestSupport.waitUntil("the ring's results recorded") {
                try await server.request("GET", "/v1/call-events/evt_gated").object?["state"] as? String == "done"
            }
        }
    }

    @Test func aCommitFailingAfterThePushesLeftIsAnErrorRecordsNothingAndARetryRingsAgain() async throws {
        try await withWebhookServer { setup in
            let server = setup.server
            try await CommitGate.failCommits(server.pool, id: "evt_commit_fails")
            let body = CallEvents.wakeup("evt_commit_fails")

            let answer = try await deliver(server, body)
            #expect(answer.status == 503, "not committed: not a 2xx")
            try await TestSupport.waitUntil("the phones rang all the same") { CallEvents.pushes(setup.mock).count == 2 }
            #expect(try await callEventRows(server, id: "evt_commit_fails") == 0, "the claim is not recorded")
            try await TestSupport.waitUntil("the lost claim is logged") {
                server.logs.joined.contains("a call event's claim was not committed after its pushes started")
            }

            // DialStack retries the failed delivery: nothing says it rang, so it rings again.
            try await CommitGate.failCommits(server.pool, id: nil)
            let retry = try await deliver(server, body)
            #expect(retry.status == 200, "\(retry.body)")
            #expect(retry.object?["duplicate"] as? Bool == false)
            #expect(CallEvents.pushes(setup.mock).count == 4)
            #expect(try await callEventRows(server, id: "evt_commit_fails") == 1)
        }
    }
}

/// A deferred trigger on `call_events` that runs in a claim's COMMIT: it waits while a gate holds
/// the event's lock (`close`), or fails the COMMIT (`failCommits`, as a serialization failure).
struct CommitGate {
    let gate: Gate

    static func install(_ pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try connection.query("CREATE TABLE test_failing_commits (id text PRIMARY KEY)")
            _ = try connection.query(
                """
                CREATE FUNCTION test_commit_gate() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF EXISTS (SELECT 1 FROM test_failing_commits f WHERE f.id = NEW.id) THEN
                        RAISE EXCEPTION 'the test fails this COMMIT' USING ERRCODE = '40001';
                    END IF;
                    PERFORM pg_advisory_xact_lock_shared(hashtextextended('commit:' || NEW.id, 0));
                    RETURN NULL;
                END $$
                """)
            _ = try connection.query(
                """
                CREATE CONSTRAINT TRIGGER test_commit_gate AFTER INSERT ON call_events
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_commit_gate()
                """)
        }
    }

    /// The COMMIT of a claim of `id` waits until `open()` (the trigger takes `commit:<id>`).
    static func close(_ pool: PostgresPool, id: String) async throws -> CommitGate {
        CommitGate(gate: try await Gate.close(pool, key: "commit:" + id))
    }

    func open() async throws {
        try await gate.open()
    }

    /// The COMMITs of claims of `id` fail from now on; nil: none does.
    static func failCommits(_ pool: PostgresPool, id: String?) async throws {
        try await pool.withConnection { connection in
            _ = try connection.query("DELETE FROM test_failing_commits")
            if let id { _ = try connection.query("INSERT INTO test_failing_commits VALUES ($1)", [id]) }
        }
    }
}
