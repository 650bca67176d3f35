import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `PUT /v1/providers/{name}` with `credentials` and `endpoint`: checked, sealed at rest, shown
/// only as ids and a fingerprint, and never echoed or logged.
@Suite("/v1/providers credentials")
struct ProviderCredentialTests {
    static let apnsKey = try! SigningKey.generate(.es256)
    static let fcmKey = try! SigningKey.generate(.rs256)

    static func apnsCredentials(key: SigningKey = apnsKey) throws -> [String: Any] {
        ["team_id": "ABCDE12345", "key_id": "XYZ987WVU6", "private_key": try key.pkcs8PEM()]
    }

    static func serviceAccount(projectID: String = "example-project") throws -> [String: Any] {
        [
            "type": "service_account", "project_id": projectID, "private_key_id": "k1",
            "private_key": try fcmKey.pkcs8PEM(), "client_email": "sender@example-project.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
    }

    static func sealedColumn(_ server: TestServer, _ name: String) async throws -> String? {
        try await server.pool.withConnection {
            try $0.query("SELECT credentials_sealed FROM providers WHERE name = '\(name)'").rows.first?[
                "credentials_sealed"]
        }
    }

    /// Every secret a test put in: none may appear in an answer, a log line or the clear columns.
    static func secrets() throws -> [String] {
        try [apnsKey.pkcs8PEM(), fcmKey.pkcs8PEM()].flatMap { pem in
            // The base64 body lines of the PEM, each long enough to be unmistakable.
            pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count >= 40 }.map(String.init)
        }
    }

    @Test func apnsCredentialsAreSealedAndShownOnlyAsFacts() async throws {
        try await withTestServer { server in
            let put = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app", "credentials": try Self.apnsCredentials(),
                    "endpoint": "https://push.example:8443/",
                ])
            #expect(put.status == 201, "\(put.body)")
            let got = try await server.request("GET", "/v1/providers/ios")
            let provider = try #require(got.object?["provider"] as? [String: Any])
            #expect(provider["credentials_configured"] as? Bool == true)
            #expect(provider["endpoint"] as? String == "https://push.example:8443")
            let facts = try #require(provider["credentials"] as? [String: Any])
            #expect(facts["team_id"] as? String == "ABCDE12345")
            #expect(facts["key_id"] as? String == "XYZ987WVU6")
            #expect(facts["key_fingerprint"] as? String == (try Self.apnsKey.verifyingKey().fingerprint()))

            let sealed = try #require(try await Self.sealedColumn(server, "ios"))
            #expect(sealed.hasPrefix("v1.\(TestServer.sealer.current.id)."))
            let opened = try await ProviderCredentialStore(pool: server.pool, sealer: TestServer.sealer).secret(
                of: try ProviderName("ios"))
            #expect(String(decoding: try #require(opened), as: UTF8.self).contains("XYZ987WVU6"))

            let rows = try await server.pool.withConnection { try $0.query("SELECT * FROM providers").rows }
            let everything =
                [put.body, got.body, try await server.request("GET", "/v1/providers").body, server.logs.joined]
                + rows.flatMap { row in
                    ["credential_team_id", "credential_key_id", "credential_fingerprint", "credentials_sealed"]
                        .compactMap {
                            row[$0]
                        }
                }
            for secret in try Self.secrets() {
                #expect(!everything.contains { $0.contains(secret) })
            }
            #expect(!everything.contains { $0.contains("PRIVATE KEY") })
        }
    }

    @Test func putWithoutCredentialsKeepsThemAndNullRemovesThem() async throws {
        try await withTestServer { server in
            let body: [String: Any] = ["service": "apns", "topic": "com.example.app"]
            _ = try await server.request(
                "PUT", "/v1/providers/ios", json: body.merging(["credentials": try Self.apnsCredentials()]) { $1 })
            let kept = try await server.request(
                "PUT", "/v1/providers/ios", json: ["service": "apns", "topic": "com.example.b"])
            #expect(kept.status == 200)
            #expect((kept.object?["provider"] as? [String: Any])?["credentials_configured"] as? Bool == true)
            #expect(try await Self.sealedColumn(server, "ios") != nil)

            let removed = try await server.request(
                "PUT", "/v1/providers/ios", json: body.merging(["credentials": NSNull()]) { $1 })
            #expect(removed.status == 200)
            let provider = try #require(removed.object?["provider"] as? [String: Any])
            #expect(provider["credentials_configured"] as? Bool == false)
            #expect(provider["credentials"] is NSNull)
            #expect(try await Self.sealedColumn(server, "ios") == nil)

            // Credentials are for one service: changing it drops them.
            _ = try await server.request(
                "PUT", "/v1/providers/ios", json: body.merging(["credentials": try Self.apnsCredentials()]) { $1 })
            let switched = try await server.request("PUT", "/v1/providers/ios", json: ["service": "fcm"])
            #expect(switched.status == 200)
            #expect((switched.object?["provider"] as? [String: Any])?["credentials_configured"] as? Bool == false)
        }
    }

    @Test func fcmServiceAccountShowsItsClientEmail() async throws {
        try await withTestServer { server in
            let put = try await server.request(
                "PUT", "/v1/providers/android",
                json: [
                    "service": "fcm", "project_id": "example-project",
                    "credentials": ["service_account": try Self.serviceAccount()],
                ])
            #expect(put.status == 201, "\(put.body)")
            let facts = (put.object?["provider"] as? [String: Any])?["credentials"] as? [String: Any]
            #expect(facts?["client_email"] as? String == "sender@example-project.iam.gserviceaccount.com")
            #expect(facts?["key_id"] as? String == "k1")
            for secret in try Self.secrets() { #expect(!put.body.contains(secret)) }
        }
    }

    /// A bad credential, by what is wrong with it, with the field its 422 names.
    enum BadCredential: String, CaseIterable, Sendable {
        case notAKey, lowercaseTeamID, unknownField, serviceAccountNotAnObject, projectMismatch

        var field: String {
            switch self {
            case .notAKey: "credentials.private_key"
            case .lowercaseTeamID: "credentials.team_id"
            case .unknownField: "credentials.extra"
            case .serviceAccountNotAnObject: "credentials.service_account"
            case .projectMismatch: "credentials.service_account.project_id"
            }
        }

        func body() throws -> [String: Any] {
            var apns = try ProviderCredentialTests.apnsCredentials()
            switch self {
            case .notAKey: apns["private_key"] = "not a key"
            case .lowercaseTeamID: apns["team_id"] = "abcde12345"
            case .unknownField: apns["extra"] = "x"
            case .serviceAccountNotAnObject:
                return ["service": "fcm", "credentials": ["service_account": "x"]]
            case .projectMismatch:
                return [
                    "service": "fcm", "project_id": "example-project",
                    "credentials": ["service_account": try ProviderCredentialTests.serviceAccount(projectID: "other")],
                ]
            }
            return ["service": "apns", "topic": "com.example.app", "credentials": apns]
        }
    }

    @Test(arguments: BadCredential.allCases)
    func aBadCredentialIsRefusedAndNothingIsStored(_ bad: BadCredential) async throws {
        try await withTestServer { server in
            let response = try await server.request("PUT", "/v1/providers/new-one", json: try bad.body())
            #expect(response.status == 422)
            #expect(response.fieldErrors.contains(bad.field), "\(response.body)")
            #expect(try await server.request("GET", "/v1/providers/new-one").status == 404)
        }
    }

    @Test func aKeyFromTheWrongCurveIsRefused() async throws {
        try await withTestServer { server in
            let response = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app",
                    "credentials": try Self.apnsCredentials(key: Self.fcmKey),
                ])
            #expect(response.status == 422)
            #expect(response.fieldErrors == ["credentials.private_key"], "\(response.body)")
            for secret in try Self.secrets() { #expect(!response.body.contains(secret)) }
        }
    }

    @Test func aBadEndpointIsRefused() async throws {
        try await withTestServer { server in
            let response = try await server.request(
                "PUT", "/v1/providers/ios",
                json: ["service": "apns", "topic": "com.example.app", "endpoint": "http://push.example/3"])
            #expect(response.status == 422)
            #expect(response.fieldErrors == ["endpoint"])
        }
    }

    @Test func withoutAMasterKeyStoringCredentialsIsAConflictThatSaysHow() async throws {
        var options = TestServer.Options()
        options.sealer = nil
        try await withTestServer(options) { server in
            let response = try await server.request(
                "PUT", "/v1/providers/ios",
                json: ["service": "apns", "topic": "com.example.app", "credentials": try Self.apnsCredentials()])
            #expect(response.status == 409)
            #expect(response.body.contains("REGISTRY_MASTER_KEY"))
            #expect(try await server.request("GET", "/v1/providers/ios").status == 404)
            // Everything else still works without one.
            let plain = try await server.request(
                "PUT", "/v1/providers/ios", json: ["service": "apns", "topic": "com.example.app"])
            #expect(plain.status == 201)
        }
    }

    @Test func resealMovesEverySecretToTheNewMasterKey() async throws {
        try await withTestServer { server in
            _ = try await server.request(
                "PUT", "/v1/providers/ios",
                json: ["service": "apns", "topic": "com.example.app", "credentials": try Self.apnsCredentials()])
            let newKey = try MasterKey.generate()
            let rotating = ProviderCredentialStore(
                pool: server.pool, sealer: SecretSealer(current: newKey, previous: [TestServer.sealer.current]))
            #expect(try await rotating.resealAll() == 1)
            #expect(try await rotating.resealAll() == 0)
            let newOnly = ProviderCredentialStore(pool: server.pool, sealer: SecretSealer(current: newKey))
            #expect(try await newOnly.secret(of: try ProviderName("ios")) != nil)
            let oldOnly = ProviderCredentialStore(pool: server.pool, sealer: TestServer.sealer)
            await #expect(throws: RegistryError.self) { try await oldOnly.secret(of: try ProviderName("ios")) }
        }
    }
}
