import Postgres
import TestSupport
import Testing

/// A SIP registration registers every token of its contact or none, even when its provider is
/// deleted while it runs.
@Suite("SIP registration racing a provider's deletion")
struct SIPRaceTests {
    static let contact =
        "<sip:carol@host;pn-provider=apns;pn-prid=\(Tokens.apns(200)):remote&\(Tokens.apns(201)):voip;pn-param=ABCDE12345.com.example.app.remote&voip>"

    @Test func aProviderDeletedMidwayLeavesNoTokenAndAnswers422() async throws {
        try await withDeviceServer { server in
            var configuration = PostgresConfiguration(url: server.pool.configuration.url)
            configuration.poolSize = 1
            configuration.statementTimeout = .seconds(10)
            let gate = PostgresPool(configuration: configuration, logger: TestSupport.logger("sip-race-gate"))
            let deleter = PostgresPool(configuration: configuration, logger: TestSupport.logger("sip-race"))
            let result = await Result.of {
                // The deletion holds its commit until the gate's session ends.
                _ = try await gate.withConnection {
                    try $0.query("SELECT pg_advisory_lock(hashtextextended('sip-race', 0))")
                }
                let deletion = Task {
                    try await deleter.withConnection { connection in
                        try connection.execute("BEGIN")
                        _ = try connection.query("DELETE FROM providers WHERE name = 'ios'")
                        _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('sip-race', 0))")
                        try connection.execute("COMMIT")
                    }
                }
                try await Self.waitForLockWaits(1, pool: server.pool)
                let registration = Task {
                    try await server.request("POST", "/v1/users/carol/devices/sip", json: ["contact": Self.contact])
                }
                try await Self.waitForLockWaits(2, pool: server.pool)
                await gate.shutdown()
                try await deletion.value
                let response = try await registration.value
                #expect(response.status == 422, "\(response.body)")
                #expect(response.fieldErrors == ["contact"])
                #expect(try await server.tokens(of: "carol").isEmpty)
            }
            await gate.shutdown()
            await deleter.shutdown()
            try result.get()
        }
    }

    /// Waits until `count` sessions of this database wait for a lock.
    static func waitForLockWaits(_ count: Int, pool: PostgresPool) async throws {
        let end = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < end {
            let waiting = try await pool.withConnection { connection in
                try connection.query(
                    """
                    SELECT count(*)::int AS n FROM pg_stat_activity
                     WHERE datname = current_database() AND wait_event_type = 'Lock'
                    """
                ).rows[0].int("n")
            }
            if waiting >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("fewer than \(count) sessions ever waited for a lock")
    }
}
