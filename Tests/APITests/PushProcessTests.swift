import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// `device-registry serve` as a process sending pushes to the mock: the metrics it exposes (the
/// gauges of pushes in flight and open streams falling as well as rising), and no secret in them
/// or in its logs.
@Suite struct PushProcessTests {
    @Test func pushMetricsAndLogsCarryNoSecret() async throws {
        let mock = try await MockPushFixture.start()
        let database = try await TestDatabase.create()
        let admin = try APIKeySecret.generate()
        let (server, port) = try await ProcessTests.serve(
            database.url,
            [
                "PUSH_CA_FILE": mock.certificates.caFile, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url,
                "REGISTRY_ADMIN_KEY": admin.value,
            ])
        let send = Self.sender(port: port, key: admin.value)
        let pem = try mock.apnsKey.pkcs8PEM()
        let put = try await send(
            "PUT", "/v1/providers/ios",
            [
                "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                "credentials": ["team_id": mock.teamID, "key_id": mock.keyID, "private_key": pem],
            ])
        #expect(put.status == 201, "\(put.body)")
        _ = try await send(
            "POST", "/v1/devices", ["user_id": "alice", "provider": "ios", "type": "voip", "token": Tokens.apns(1)])
        let later = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        mock.server.script(
            MockReply(service: .apns, token: Tokens.apns(1), status: 410, reason: "Unregistered", timestamp: later))
        _ = try await send(
            "POST", "/v1/devices", ["user_id": "bob", "provider": "ios", "type": "voip", "token": Tokens.apns(2)])
        let pushed = try await send(
            "POST", "/v1/push",
            ["user_ids": ["alice", "bob"], "apns": ["push_type": "voip", "payload": ["aps": [:]]]])
        #expect(pushed.status == 200, "\(pushed.body)")

        let metrics = try await ProcessTests.get(port, "/metrics")
        let samples = PrometheusText.samples(metrics.body)
        #expect(
            samples[#"push_sends_total{provider="ios",service="apns",status="sent",reason=""}"#] == 1, "\(metrics.body)"
        )
        #expect(
            samples[#"push_sends_total{provider="ios",service="apns",status="token_invalid",reason="Unregistered"}"#]
                == 1)
        #expect(samples[#"push_tokens_invalidated_total{provider="ios",action="deleted",reason="Unregistered"}"#] == 1)
        #expect(samples[#"push_connections_opened_total{provider="ios"}"#] == 1)
        #expect(samples[#"push_credentials_issued_total{provider="ios"}"#] == 1)
        #expect(metrics.body.contains("# TYPE push_connections_opened_total counter"))
        #expect(samples[#"push_provider_unhealthy{provider="ios"}"#] == 0)
        #expect(samples.keys.contains { $0.hasPrefix("push_send_duration_seconds_bucket{") })
        #expect(samples[#"push_provider_token_renewals_total{key_id="\#(mock.keyID)"}"#] == 1)
        #expect(samples[#"push_open_connections{provider="ios"}"#] == 1)
        #expect(samples[#"push_open_streams{provider="ios"}"#] == 0)
        #expect(samples[#"push_in_flight{provider="ios"}"#] == 0)

        // The gauges follow a push in flight up and back down.
        mock.server.script(MockReply(service: .apns, token: Tokens.apns(2), delayMilliseconds: 2_000))
        async let slow = send(
            "POST", "/v1/push", ["user_ids": ["bob"], "apns": ["push_type": "voip", "payload": ["aps": [:]]]])
        var during: [String: Double] = [:]
        // The slot is taken a moment before the stream: wait for both.
        for _ in 0..<200
        where during[#"push_in_flight{provider="ios"}"#] != 1 || during[#"push_open_streams{provider="ios"}"#] != 1 {
            during = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
        }
        #expect(during[#"push_in_flight{provider="ios"}"#] == 1)
        #expect(during[#"push_open_streams{provider="ios"}"#] == 1)
        #expect(try await slow.status == 200)
        let after = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
        #expect(after[#"push_in_flight{provider="ios"}"#] == 0)
        #expect(after[#"push_open_streams{provider="ios"}"#] == 0)

        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(20))
        let everything = ([metrics.body, pushed.body] + server.stdout + server.stderr).joined(separator: "\n")
        for line in pem.split(separator: "\n") where !line.hasPrefix("-----") {
            #expect(!everything.contains(line))
        }
        #expect(!everything.contains("eyJ"))
        #expect(!everything.contains(Tokens.apns(1)) && !everything.contains(Tokens.apns(2)))
        await database.drop()
        try await mock.stop()
    }

    /// A deleted provider's sender closes on the instance that deleted it at once, and on another
    /// instance at its next push, not at the next restart.
    @Test func aDeletedProvidersSenderClosesOnEveryInstance() async throws {
        let mock = try await MockPushFixture.start()
        let database = try await TestDatabase.create()
        let admin = try APIKeySecret.generate()
        let environment = [
            "PUSH_CA_FILE": mock.certificates.caFile, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url,
            "REGISTRY_ADMIN_KEY": admin.value,
        ]
        let (deleting, deletingPort) = try await ProcessTests.serve(database.url, environment)
        let (other, otherPort) = try await ProcessTests.serve(database.url, environment)
        let send = Self.sender(port: deletingPort, key: admin.value)
        let sendToOther = Self.sender(port: otherPort, key: admin.value)
        for (name, user, token) in [("ios", "alice", Tokens.apns(1)), ("ios2", "bob", Tokens.apns(2))] {
            let put = try await send(
                "PUT", "/v1/providers/\(name)",
                [
                    "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                    "credentials": [
                        "team_id": mock.teamID, "key_id": mock.keyID, "private_key": try mock.apnsKey.pkcs8PEM(),
                    ],
                ])
            #expect(put.status == 201, "\(put.body)")
            _ = try await send(
                "POST", "/v1/devices", ["user_id": user, "provider": name, "type": "voip", "token": token])
        }
        func push(_ user: String, through send: AdminRequest) async throws {
            let pushed = try await send(
                "POST", "/v1/push", ["user_ids": [user], "apns": ["push_type": "voip", "payload": ["aps": [:]]]])
            #expect(pushed.status == 200, "\(pushed.body)")
        }
        let open = #"push_open_connections{provider="ios"}"#
        for (port, send) in [(deletingPort, send), (otherPort, sendToOther)] {
            try await push("alice", through: send)
            #expect(PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)[open] == 1)
        }

        #expect(try await send("DELETE", "/v1/providers/ios?cascade=true", nil).status == 204)
        // This instance closes it unasked; the other one once a push reads a provider list without it.
        var samples: [String: Double] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            samples = PrometheusText.samples(try await ProcessTests.get(deletingPort, "/metrics").body)
        } while samples[open] != 0 && ContinuousClock.now < deadline
        #expect(samples[open] == 0)
        repeat {
            try await push("bob", through: sendToOther)
            samples = PrometheusText.samples(try await ProcessTests.get(otherPort, "/metrics").body)
        } while samples[open] != 0 && ContinuousClock.now < deadline
        #expect(samples[open] == 0)

        for server in [deleting, other] {
            server.signal(SIGTERM)
            try await server.waitForExit(within: .seconds(20))
        }
        await database.drop()
        try await mock.stop()
    }

    /// Every per-provider series that has no label but the provider is at 0 before any push: for
    /// a provider created while serving, and for every provider at the next start.
    @Test func everyProvidersSeriesIsThereBeforeItsFirstPush() async throws {
        let database = try await TestDatabase.create()
        let admin = try APIKeySecret.generate()
        let environment = [
            "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url, "REGISTRY_ADMIN_KEY": admin.value,
        ]
        let series = [
            "push_open_connections", "push_open_streams", "push_in_flight", "push_waiting", "push_provider_unhealthy",
            "push_connections_opened_total", "push_credentials_issued_total", "push_retries_total",
            "push_expired_before_send_total",
        ]
        func expectEverySeries(port: Int, _ when: String) async throws {
            let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
            for provider in ["ios", "android"] {
                for name in series {
                    #expect(samples[#"\#(name){provider="\#(provider)"}"#] == 0, "\(name) for \(provider) \(when)")
                }
            }
        }
        let (first, port) = try await ProcessTests.serve(database.url, environment)
        let send = Self.sender(port: port, key: admin.value)
        #expect(
            try await send("PUT", "/v1/providers/ios", ["service": "apns", "topic": "com.example.app"]).status == 201)
        #expect(
            try await send("PUT", "/v1/providers/android", ["service": "fcm", "project_id": "example-project"]).status
                == 201)
        try await expectEverySeries(port: port, "once created")
        first.signal(SIGTERM)
        try await first.waitForExit(within: .seconds(20))

        let (second, secondPort) = try await ProcessTests.serve(database.url, environment)
        try await expectEverySeries(port: secondPort, "at start")
        second.signal(SIGTERM)
        try await second.waitForExit(within: .seconds(20))
        await database.drop()
    }

    typealias AdminRequest =
        @Sendable (_ method: String, _ path: String, _ body: [String: Any]?) async throws
        -> TestResponse

    /// Sends one admin request to the server on `port`, with a JSON body when one is given.
    static func sender(port: Int, key: String) -> AdminRequest {
        { method, path, body in
            let client = try await HTTPTestClient.connect(port: port)
            let response = try await client.request(
                method, path,
                headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
                body: try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) })
            await client.close()
            return response
        }
    }
}
