import TestSupport
import Testing

/// A provider whose stored credentials cannot be opened (sealed under a master key this server
/// does not have): every push says so, and the log says it once, not once per push.
@Suite("Unreadable credentials")
struct UnreadableCredentialsTests {
    @Test func areReportedOnEveryPushAndLoggedOnce() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.pool.withConnection {
                try $0.execute("UPDATE providers SET credentials_sealed = 'v1.gone.AAAA' WHERE name = 'ios'")
            }
            for _ in 0..<3 {
                let results = try await PushTests().push(
                    server, ["user_ids": ["alice"], "apns": PushTests.apnsSection])
                #expect(results.map { $0["reason"] as? String } == ["CredentialsUnreadable"])
            }
            let logged = server.logs.joined.components(separatedBy: "provider credentials cannot be read").count - 1
            #expect(logged == 1)
        }
    }
}
