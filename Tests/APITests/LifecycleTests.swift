import Foundation
import Postgres
import Store
import TestSupport
import Testing

@Suite("SIP contacts, feedback and staleness")
struct LifecycleTests {
    static let remote = Tokens.apns(100), voip = Tokens.apns(101)

    @Test(
        arguments: [
            (
                "<sip:alice@10.0.0.1:5060;transport=tls;pn-provider=apns;pn-prid=\(remote):remote&\(voip):voip;pn-param=ABCDE12345.com.example.app.remote&voip>",
                [("apns", remote), ("voip", voip)], "production"
            ),
            (
                "\"Alice\" <sip:alice@host;pn-param=ABCDE12345.com.example.app.voip;pn-prid=\(voip):voip;pn-provider=apns.dev>;expires=3600",
                [("voip", voip)], "sandbox"
            ),
            (
                "sip:alice@host;pn-provider=apns;pn-prid=\(remote);pn-param=ABCDE12345.com.example.app",
                [("apns", remote)], "production"
            ),
            (
                "<sip:alice@host;pn-provider=apns;pn-prid=\(remote)%3Aremote%26\(voip)%3Avoip;pn-param=ABCDE12345.com.example.app.remote%26voip>",
                [("apns", remote), ("voip", voip)], "production"
            ),
            (
                "<sip:alice@host;pn-provider=fcm;pn-prid=\(Tokens.fcm(7));pn-param=example-project>",
                [("fcm", Tokens.fcm(7))], nil
            ),
        ] as [(String, [(String, String)], String?)])
    func contactsRegisterEveryTokenTheyCarry(contact: String, expected: [(String, String)], environment: String?)
        async throws
    {
        try await withDeviceServer { server in
            let response = try await server.request("POST", "/v1/users/alice/devices/sip", json: ["contact": contact])
            #expect(response.status == 201, "\(response.body)")
            let registrations = response.object?["registrations"] as? [[String: Any]] ?? []
            let devices = registrations.compactMap { $0["device"] as? [String: Any] }
            #expect(devices.map { "\($0["type"] ?? "")/\($0["token"] ?? "")" } == expected.map { "\($0.0)/\($0.1)" })
            #expect(devices.allSatisfy { ($0["environment"] as? String) == environment })
            #expect(Set(try await server.tokens(of: "alice")) == Set(expected.map(\.1)))
            let again = try await server.request("POST", "/v1/users/alice/devices/sip", json: ["contact": contact])
            #expect(again.status == 200)
        }
    }

    @Test(arguments: [
        "<sip:alice@host;transport=tcp>",
        "<sip:alice@host;pn-provider=apns;pn-prid=\(remote);pn-param=ABCDE12345.com.other.app>",
        "<sip:alice@host;pn-provider=fcm;pn-prid=\(Tokens.fcm(8));pn-param=other-project>",
        "<sip:alice@host;pn-provider=webpush;pn-prid=abc;pn-param=x>",
        "<sip:alice@host;pn-provider=apns;pn-prid=nothex:remote;pn-param=ABCDE12345.com.example.app>",
    ])
    func unusableContactsAre422OnContact(contact: String) async throws {
        try await withDeviceServer { server in
            let response = try await server.request("POST", "/v1/users/alice/devices/sip", json: ["contact": contact])
            #expect(response.status == 422, "\(response.body)")
            #expect(response.fieldErrors.contains("contact"))
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    func feedback(_ server: TestServer, token: String, reason: String, at date: Date, provider: String = "ios")
        async throws
        -> String?
    {
        let response = try await server.request(
            "POST", "/v1/feedback",
            json: [
                "provider": provider, "token": token, "reason": reason,
                "timestamp": ISO8601DateFormatter().string(from: date),
            ])
        #expect(response.status == 200, "\(response.body)")
        return response.object?["action"] as? String
    }

    @Test func aStale410NeverDeletesATokenRegisteredAfterIt() async throws {
        try await withDeviceServer { server in
            let t0 = Date().addingTimeInterval(-60)
            _ = try await server.register(user: "alice", token: Self.remote)  // t1
            #expect(try await feedback(server, token: Self.remote, reason: "Unregistered", at: t0) == "kept_newer")
            #expect(try await server.tokens(of: "alice") == [Self.remote])
            let t2 = Date().addingTimeInterval(60)
            #expect(try await feedback(server, token: Self.remote, reason: "Unregistered", at: t2) == "deleted")
            #expect(try await server.tokens(of: "alice").isEmpty)
            #expect(try await feedback(server, token: Self.remote, reason: "Unregistered", at: t2) == "ignored")
        }
    }

    @Test(arguments: [
        ("ios", "apns", "ExpiredToken", "deleted"), ("android", "fcm", "UNREGISTERED", "deleted"),
        ("ios", "apns", "BadDeviceToken", "disabled"), ("ios", "apns", "DeviceTokenNotForTopic", "disabled"),
        ("android", "fcm", "SENDER_ID_MISMATCH", "disabled"),
        ("ios", "apns", "PayloadTooLarge", "ignored"), ("ios", "apns", "BadTopic", "ignored"),
        ("ios", "apns", "TooManyRequests", "ignored"), ("android", "fcm", "INVALID_ARGUMENT", "ignored"),
        ("ios", "apns", "SomethingNew", "ignored"), ("android", "fcm", "BadDeviceToken", "ignored"),
    ])
    func everyReasonIsClassified(provider: String, type: String, reason: String, action: String) async throws {
        try await withDeviceServer { server in
            let token = type == "fcm" ? Tokens.fcm(9) : Tokens.apns(9)
            _ = try await server.register(user: "bob", token: token, provider: provider, type: type)
            #expect(
                try await feedback(
                    server, token: token, reason: reason, at: Date().addingTimeInterval(60), provider: provider)
                    == action)
            let listed = try await server.tokens(of: "bob")
            #expect(listed == (action == "ignored" ? [token] : []))
            if action == "disabled" {
                let all = try await server.request("GET", "/v1/users/bob/devices?include_disabled=true")
                let device = (all.object?["devices"] as? [[String: Any]])?.first
                #expect(device?["disabled_reason"] as? String == reason)
                #expect(device?["disabled_at"] is String)
                _ = try await server.register(user: "bob", token: token, provider: provider, type: type)  // clears it
                #expect(try await server.tokens(of: "bob") == [token])
            }
        }
    }

    @Test func feedbackIsValidated() async throws {
        try await withDeviceServer { server in
            for (body, field) in [
                (["provider": "ios", "token": Self.remote, "reason": "Unregistered"], "timestamp"),
                (
                    ["provider": "ios", "token": Self.remote, "reason": "Unregistered", "timestamp": "yesterday"],
                    "timestamp"
                ),
                (
                    [
                        "provider": "nope", "token": Self.remote, "reason": "Unregistered",
                        "timestamp": "2026-01-01T00:00:00Z",
                    ], "provider"
                ),
            ] {
                let response = try await server.request("POST", "/v1/feedback", json: body)
                #expect(response.status == 422 && response.fieldErrors.contains(field), "\(response.body)")
            }
        }
    }

    @Test func pruneDeletesExactlyTheStaleRowsAcrossBatchesWhileRegistrationsContinue() async throws {
        try await withDeviceServer { server in
            _ = try await server.pool.withConnection { connection in
                try connection.query(
                    """
                    INSERT INTO devices (provider, token, type, user_id, environment, created_at, updated_at, last_seen_at)
                    SELECT 'ios', lpad(to_hex(n), 64, '0'), 'apns', 'stale-' || n, 'production',
                           now() - interval '300 days', now() - interval '300 days', now() - interval '300 days'
                      FROM generate_series(1, 430) n
                    """)
            }
            let registering = Task {
                for n in 0..<60 { _ = try await server.register(user: "fresh-\(n)", token: Tokens.apns(500_000 + n)) }
            }
            let deleted = try await DeviceStore(pool: server.pool).prune(
                notSeenSince: Date().addingTimeInterval(-270 * 86_400), batchSize: 50)
            try await registering.value
            #expect(deleted == 430)
            let rows = try await server.deviceRows()
            #expect(rows.count == 60 && rows.allSatisfy { $0.user.hasPrefix("fresh-") })
        }
    }
}
