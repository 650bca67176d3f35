import CallPush
import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `device-registry providers set-credentials` and `providers reseal`, run as a process.
@Suite struct ProviderCredentialCommandTests {
    @Test func setCredentialsSealsAP8AndResealMovesItToANewMasterKey() async throws {
        let database = try await TestDatabase.create()
        let oldKey = try MasterKey.generate()
        let newKey = try MasterKey.generate()
        let apnsKey = try SigningKey.generate(.es256)
        let p8 = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
        try Data(try apnsKey.pkcs8PEM().utf8).write(to: p8)
        defer { try? FileManager.default.removeItem(at: p8) }
        let environment = ["DATABASE_URL": database.url, "REGISTRY_MASTER_KEY": oldKey.base64url]
        #expect(
            try await RegistryProcess.run(
                [
                    "providers", "add", "ios", "--service", "apns", "--topic", "com.example.app", "--call-format",
                    "signalwire",
                ], environment: environment
            ).code == 0)
        let arguments = ["providers", "set-credentials", "ios", "--p8", p8.path, "--key-id", "XYZ987WVU6"]
        let withoutTeam = try await RegistryProcess.run(arguments, environment: environment)
        #expect(withoutTeam.code != 0)
        let withoutMasterKey = try await RegistryProcess.run(
            arguments + ["--team-id", "ABCDE12345"], environment: ["DATABASE_URL": database.url])
        #expect(withoutMasterKey.code != 0)
        #expect(withoutMasterKey.stderr.joined().contains("REGISTRY_MASTER_KEY"))
        let stored = try await RegistryProcess.run(arguments + ["--team-id", "ABCDE12345"], environment: environment)
        #expect(stored.code == 0, "\(stored.stderr)")
        let fingerprint = try apnsKey.verifyingKey().fingerprint()
        #expect(stored.stdout.joined().contains(fingerprint))

        // A device with a payload key, sealed under the old master key like the credentials.
        let setupPool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url), logger: .init(label: "test"))
        let token = try PushToken(type: .voip, raw: String(repeating: "ab", count: 32))
        let payloadKey = try PayloadKeyStore(pool: setupPool, sealer: SecretSealer(current: oldKey)).make(
            provider: try ProviderName("ios"), token: token)
        _ = try await DeviceStore(pool: setupPool).register(
            try DeviceRegistration(userID: try UserID("artem"), provider: try ProviderName("ios"), token: token),
            payloadKey: payloadKey, rotate: false)
        await setupPool.shutdown()

        let resealed = try await RegistryProcess.run(
            ["providers", "reseal"],
            environment: [
                "DATABASE_URL": database.url, "REGISTRY_MASTER_KEY": newKey.base64url,
                "REGISTRY_OLD_MASTER_KEYS": oldKey.base64url,
            ])
        #expect(resealed.code == 0, "\(resealed.stderr)")
        #expect(resealed.stdout == ["Resealed 1 provider credential and 1 payload key."])

        let pool = PostgresPool(configuration: PostgresConfiguration(url: database.url), logger: .init(label: "test"))
        let newStore = ProviderCredentialStore(pool: pool, sealer: SecretSealer(current: newKey))
        let secret = try await newStore.secret(of: try ProviderName("ios"))
        let keys = try await newStore.payloadKeys.payloadKeys(provider: try ProviderName("ios"), tokens: [token.value])
        await pool.shutdown()
        #expect(String(decoding: try #require(secret), as: UTF8.self).contains("ABCDE12345"))
        #expect(keys[token.value] == payloadKey.key)

        // `providers add` again to fix the topic, without --call-format: the format and the
        // credentials stay as they were.
        let fixed = try await RegistryProcess.run(
            ["providers", "add", "ios", "--service", "apns", "--topic", "com.example.app2"], environment: environment)
        #expect(fixed.code == 0, "\(fixed.stderr)")
        let check = PostgresPool(configuration: PostgresConfiguration(url: database.url), logger: .init(label: "test"))
        let after = try await ProviderStore(pool: check).provider(named: try ProviderName("ios"))
        await check.shutdown()
        #expect(after.callFormat == .signalwire && after.provider.topic == "com.example.app2")
        #expect(after.credentials?.keyFingerprint == fingerprint)
        let output = (withoutTeam.stdout + withoutTeam.stderr + stored.stdout + stored.stderr + resealed.stderr)
            .joined(separator: "\n")
        #expect(!output.contains("PRIVATE KEY"))
        await database.drop()
    }
}
