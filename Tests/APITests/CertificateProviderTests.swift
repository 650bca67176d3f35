import Foundation
import PushDelivery
import PushRules
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// APNs certificate authentication end to end: a provider stored with a `.p12` sends through
/// the mock APNs requiring client certificates (real mutual TLS and HTTP/2); a certificate the
/// service does not trust fails its pushes with a reason and marks its provider; `/readyz`
/// shows each certificate's expiry.
@Suite("APNs certificate authentication", .serialized)
struct CertificateProviderTests {
    static var apnsSection: [String: Any] {
        [
            "push_type": "voip", "priority": 10, "expiration": "30s", "payload": ["aps": [:], "call_id": "c1"],
        ]
    }

    func withCertificateMock(_ body: (TestServer, MockPushFixture, TestClientCertificates) async throws -> Void)
        async throws
    {
        let trusted = try TestClientCertificates.make()
        defer { trusted.remove() }
        let mock = try await MockPushFixture.start(clientCertificates: trusted)
        var options = TestServer.Options()
        options.pushCAFile = mock.certificates.caFile
        options.sender = SenderConfiguration(
            maximumConnections: 1, connectTimeout: .seconds(5), attemptTimeout: .seconds(5),
            retryPolicy: RetryPolicy(
                initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 3),
            pingTimeout: options.sender.pingTimeout)
        do {
            try await withTestServer(options) { server in try await body(server, mock, trusted) }
        } catch {
            try await mock.stop()
            throw error
        }
        try await mock.stop()
    }

    static func provider(_ mock: MockPushFixture, archive: [UInt8], password: String, topic: String = "com.example.app")
        -> [String: Any]
    {
        [
            "service": "apns", "topic": topic, "endpoint": mock.baseURL,
            "credentials": ["pkcs12": Data(archive).base64EncodedString(), "pkcs12_password": password],
        ]
    }

    static func push(_ server: TestServer, user: String) async throws -> [String: Any] {
        let response = try await server.request(
            "POST", "/v1/push", json: ["user_ids": [user], "apns": Self.apnsSection])
        guard response.status == 200, let results = response.object?["results"] as? [[String: Any]], results.count == 1
        else { throw TestFailure("push answered \(response.status): \(response.body)") }
        return results[0]
    }

    @Test func aP12ProviderSendsThroughMutualTLSAndReadyzShowsItsExpiry() async throws {
        try await withCertificateMock { server, mock, trusted in
            let issued = try trusted.issue("voip", days: 90)
            let archive = try trusted.pkcs12(issued, password: "p12 pass")
            let wrong = try await server.request(
                "PUT", "/v1/providers/voip", json: Self.provider(mock, archive: archive, password: "nope"))
            #expect(wrong.status == 422)
            #expect(wrong.fieldErrors == ["credentials.pkcs12_password"], "\(wrong.body)")
            let otherApp = try await server.request(
                "PUT", "/v1/providers/voip",
                json: Self.provider(mock, archive: archive, password: "p12 pass", topic: "com.other.app"))
            #expect(otherApp.status == 422)
            #expect(otherApp.fieldErrors == ["credentials.pkcs12"], "\(otherApp.body)")
            let created = try await server.request(
                "PUT", "/v1/providers/voip", json: Self.provider(mock, archive: archive, password: "p12 pass"))
            #expect(created.status == 201, "\(created.body)")
            let provider = try #require(created.object?["provider"] as? [String: Any])
            let shown = try #require(provider["credentials"] as? [String: Any])
            #expect(shown["team_id"] as? String == "ABCDE12345")
            #expect((shown["key_fingerprint"] as? String)?.hasPrefix("SHA256:") == true)

            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "voip", type: "voip")
            let result = try await Self.push(server, user: "alice")
            #expect(result["status"] as? String == "sent", "\(result)")
            let recorded = try #require(mock.server.recordedRequests.first)
            #expect(recorded.credential?.hasPrefix("certificate topics=") == true)
            #expect(recorded.headers["apns-topic"] == "com.example.app.voip")

            let ready = try await server.request("GET", "/readyz", key: .none)
            #expect(ready.status == 200)
            let certificates = try #require(ready.object?["apns_certificates"] as? [[String: Any]])
            #expect(certificates.map { $0["provider"] as? String } == ["voip"])
            #expect(certificates.first?["state"] as? String == "valid")
            #expect((certificates.first?["not_valid_after"] as? String)?.hasPrefix("20") == true)
            #expect(!(server.logs.joined + ready.body + created.body).contains("PRIVATE KEY"))
            #expect(!server.logs.joined.contains("p12 pass"))
        }
    }

    @Test func aCertificateTheServiceDoesNotTrustFailsItsPushesWithAReason() async throws {
        try await withCertificateMock { server, mock, _ in
            let stranger = try TestClientCertificates.make()
            defer { stranger.remove() }
            let issued = try stranger.issue("stranger")
            let created = try await server.request(
                "PUT", "/v1/providers/stranger",
                json: Self.provider(mock, archive: try stranger.pkcs12(issued, password: ""), password: ""))
            #expect(created.status == 201, "\(created.body)")
            _ = try await server.register(
                user: "bob", token: Tokens.apns(2), provider: "stranger", type: "voip")
            let result = try await Self.push(server, user: "bob")
            #expect(result["status"] as? String == "failed", "\(result)")
            #expect(result["reason"] as? String == "ClientCertificateRefused", "\(result)")
            #expect(mock.server.recordedRequests.isEmpty)
            let ready = try await server.request("GET", "/readyz", key: .none)
            let unhealthy = try #require(ready.object?["unhealthy_providers"] as? [[String: Any]])
            #expect(unhealthy.map { $0["name"] as? String } == ["stranger"])
            #expect((ready.object?["apns_certificates"] as? [[String: Any]])?.first?["state"] as? String == "expiring")
        }
    }

    /// `providers set-credentials --p12`, the password read from `APNS_P12_PASSWORD` (never an
    /// argument, which `ps` would show); `serve` then reports the certificate's expiry in
    /// `/readyz` and `/metrics` from start, before any push.
    @Test func setCredentialsTakesAP12AndServeReportsItsExpiryFromStart() async throws {
        let database = try await TestDatabase.create()
        let certificates = try TestClientCertificates.make()
        defer { certificates.remove() }
        let p12 = certificates.directory.appendingPathComponent("voip.p12")
        try Data(try certificates.pkcs12(try certificates.issue("cli"), password: "cli pass")).write(to: p12)
        var environment = ["DATABASE_URL": database.url, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url]
        let added = try await RegistryProcess.run(
            ["providers", "add", "voip", "--service", "apns", "--topic", "com.example.app"], environment: environment)
        #expect(added.code == 0, "\(added.stderr)")
        let arguments = ["providers", "set-credentials", "voip", "--p12", p12.path]
        let withoutPassword = try await RegistryProcess.run(arguments, environment: environment)
        #expect(withoutPassword.code != 0)
        #expect(withoutPassword.stderr.joined().contains("pkcs12_password"), "\(withoutPassword.stderr)")
        environment["APNS_P12_PASSWORD"] = "cli pass"
        let stored = try await RegistryProcess.run(arguments, environment: environment)
        #expect(stored.code == 0, "\(stored.stderr)")
        #expect(stored.stdout.joined().contains("SHA256:"))
        let output = (withoutPassword.stdout + withoutPassword.stderr + stored.stdout + stored.stderr).joined()
        #expect(!output.contains("cli pass") && !output.contains("PRIVATE KEY"))

        let (server, port) = try await ProcessTests.serve(
            database.url, ["REGISTRY_MASTER_KEY": environment["REGISTRY_MASTER_KEY"] ?? ""])
        let ready = try await ProcessTests.get(port, "/readyz")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(ready.body.utf8)) as? [String: Any])
        let listed = try #require(body["apns_certificates"] as? [[String: String]])
        #expect(listed.map { $0["provider"] } == ["voip"] && listed.first?["state"] == "expiring", "\(listed)")
        let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
        let expiry = try #require(samples[#"apns_certificate_expiry_timestamp_seconds{provider="voip"}"#])
        #expect(abs(expiry - Date().addingTimeInterval(30 * 86_400).timeIntervalSince1970) < 600)
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        #expect(!(server.stdout + server.stderr).joined().contains("cli pass"))
        await database.drop()
    }
}
