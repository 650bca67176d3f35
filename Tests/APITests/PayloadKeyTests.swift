import CallPush
import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `payload_encryption` on `POST /v1/devices`: a device of a `signalwire` provider gets a key,
/// shown once, sealed at rest, kept until rotated or until its token moves to another user.
@Suite("Payload keys")
struct PayloadKeyTests {
    static var encrypted: [String: Any] { ["payload_encryption": "aes_256_gcm"] }

    static func withSignalWireServer(
        _ options: TestServer.Options = TestServer.Options(), _ body: (TestServer) async throws -> Void
    ) async throws {
        try await withTestServer(options) { server in
            let put = try await server.request(
                "PUT", "/v1/providers/sw", json: ["service": "fcm", "call_format": "signalwire"])
            #expect(put.status == 201, "\(put.body)")
            try await body(server)
        }
    }

    static func register(_ server: TestServer, user: String, token: String, _ extra: [String: Any] = encrypted)
        async throws -> TestResponse
    {
        try await server.register(user: user, token: token, provider: "sw", type: "fcm", extra)
    }

    /// The `payload_key` of an answer, decoded; nil when the answer has none.
    static func shownKey(_ response: TestResponse) throws -> [UInt8]? {
        guard let text = response.object?["payload_key"] as? String else { return nil }
        return Array(try #require(Data(base64Encoded: text)))
    }

    static func storedKey(_ server: TestServer, token: String, sealer: SecretSealer = TestServer.sealer)
        async throws -> [UInt8]?
    {
        try await PayloadKeyStore(pool: server.pool, sealer: sealer).payloadKeys(
            provider: try ProviderName("sw"), tokens: [token]
        )[token]?.bytes
    }

    static func sealedColumn(_ server: TestServer, token: String) async throws -> String? {
        try await server.pool.withConnection {
            try $0.queryPrepared("SELECT payload_key_sealed FROM devices WHERE token = $1", [token]).rows.first?[
                "payload_key_sealed"]
        }
    }

    @Test func theKeyIsShownOnceKeptOnReRegistrationAndReplacedWhenRotated() async throws {
        try await Self.withSignalWireServer { server in
            let token = Tokens.fcm(1)
            let created = try await Self.register(server, user: "artem", token: token)
            #expect(created.status == 201, "\(created.body)")
            let key = try #require(try Self.shownKey(created))
            #expect(key.count == 32)
            #expect(try await Self.storedKey(server, token: token) == key)

            let again = try await Self.register(server, user: "artem", token: token)
            #expect(again.status == 200)
            #expect(try Self.shownKey(again) == nil)
            let plain = try await Self.register(server, user: "artem", token: token, [:])
            #expect(try Self.shownKey(plain) == nil)
            #expect(try await Self.storedKey(server, token: token) == key)

            let rotated = try await Self.register(
                server, user: "artem", token: token, Self.encrypted.merging(["rotate_payload_key": true]) { $1 })
            #expect(rotated.status == 200)
            let newKey = try #require(try Self.shownKey(rotated))
            #expect(newKey != key)
            #expect(try await Self.storedKey(server, token: token) == newKey)

            // Sealed at rest, and nowhere else: not in a listing, an export or a log line.
            let sealed = try #require(try await Self.sealedColumn(server, token: token))
            #expect(sealed.hasPrefix("v1.\(TestServer.sealer.current.id)."))
            let shown = [key, newKey].flatMap {
                [Data($0).base64EncodedString(), $0.map { String(format: "%02x", $0) }.joined()]
            }
            let everything = [
                sealed, try await server.request("GET", "/v1/users/artem/devices").body,
                try await server.request("GET", "/v1/devices").body,
                try await server.request("GET", "/v1/devices/export").body, server.logs.joined,
            ]
            for secret in shown {
                #expect(!everything.contains { $0.contains(secret) })
            }
        }
    }

    @Test func aMovedTokenLosesItsKeyAndItsNextEncryptedRegistrationGetsAFreshOne() async throws {
        try await Self.withSignalWireServer { server in
            let token = Tokens.fcm(2)
            let first = try #require(try Self.shownKey(try await Self.register(server, user: "artem", token: token)))
            let moved = try await Self.register(server, user: "john", token: token, [:])
            #expect(moved.object?["result"] as? String == "moved")
            #expect(try await Self.storedKey(server, token: token) == nil)
            #expect(try await Self.sealedColumn(server, token: token) == nil)

            let fresh = try #require(try Self.shownKey(try await Self.register(server, user: "john", token: token)))
            #expect(fresh != first)
            #expect(try await Self.storedKey(server, token: token) == fresh)
        }
    }

    @Test(
        arguments: [
            (#"{"payload_encryption": "aes_128_gcm"}"#, "payload_encryption"),
            (#"{"payload_encryption": true}"#, "payload_encryption"),
            (#"{"rotate_payload_key": true}"#, "rotate_payload_key"),
            (#"{"payload_encryption": "aes_256_gcm", "rotate_payload_key": "yes"}"#, "rotate_payload_key"),
        ])
    func badEncryptionFieldsNameTheFieldAndRegisterNothing(extra: String, field: String) async throws {
        try await Self.withSignalWireServer { server in
            let response = try await Self.register(
                server, user: "artem", token: Tokens.fcm(3), try JSONObject.parse(extra))
            #expect(response.status == 422)
            #expect(response.fieldErrors == [field], "\(response.body)")
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    @Test func encryptionForAProviderOfAnotherFormatIsRefused() async throws {
        try await withTestServer { server in
            _ = try await server.request("PUT", "/v1/providers/android", json: ["service": "fcm"])
            let response = try await server.register(
                user: "artem", token: Tokens.fcm(4), provider: "android", type: "fcm", Self.encrypted)
            #expect(response.status == 422)
            #expect(response.fieldErrors == ["payload_encryption"], "\(response.body)")
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    @Test func withoutAMasterKeyAnEncryptedRegistrationIsAConflictAndRegistersNothing() async throws {
        var options = TestServer.Options()
        options.sealer = nil
        try await Self.withSignalWireServer(options) { server in
            let response = try await Self.register(server, user: "artem", token: Tokens.fcm(5))
            #expect(response.status == 409)
            #expect(response.body.contains("REGISTRY_MASTER_KEY"))
            #expect(try await server.deviceRows().isEmpty)
            #expect(try await Self.register(server, user: "artem", token: Tokens.fcm(5), [:]).status == 201)
        }
    }

    @Test func resealingMovesKeysToTheNewMasterKey() async throws {
        try await Self.withSignalWireServer { server in
            let token = Tokens.fcm(6)
            let key = try #require(try Self.shownKey(try await Self.register(server, user: "artem", token: token)))
            let newMasterKey = try MasterKey.generate()
            let rotating = SecretSealer(current: newMasterKey, previous: [TestServer.sealer.current])
            let store = ProviderCredentialStore(pool: server.pool, sealer: rotating)
            #expect(try await store.payloadKeys.resealAll() == 1)
            #expect(try await store.payloadKeys.resealAll() == 0)
            let sealed = try #require(try await Self.sealedColumn(server, token: token))
            #expect(sealed.hasPrefix("v1.\(newMasterKey.id)."))
            #expect(try await Self.storedKey(server, token: token, sealer: SecretSealer(current: newMasterKey)) == key)
        }
    }
}
