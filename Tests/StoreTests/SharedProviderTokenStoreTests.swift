import Foundation
import NIOConcurrencyHelpers
import Postgres
import RegistryCrypto
import TestSupport
import Testing

@testable import Store

/// The shared APNs provider token row: one decision at a time per key across connections (as
/// across instances), and the token sealed, readable only under the master key it was sealed with.
@Suite("Shared provider token store")
struct SharedProviderTokenStoreTests {
    typealias Token = SharedProviderTokenStore.Token

    @Test func concurrentRenewalsThroughSeveralPoolsSignAndStoreOneToken() async throws {
        let database = try await TestDatabase.create()
        let pools = (0..<3).map { _ in
            PostgresPool(
                configuration: PostgresConfiguration(url: database.url, poolSize: 2),
                logger: TestSupport.logger("provider-tokens"))
        }
        let sealer = SecretSealer(current: try MasterKey.generate())
        let key = SharedProviderTokenStore.Key(teamID: "ABCDE12345", keyID: "XYZ987WVU6", fingerprint: "SHA256:test")
        let signings = NIOLockedValueBox(0)
        let outcome = await Result.of {
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<12 {
                    let store = SharedProviderTokenStore(pool: pools[index % pools.count], sealer: sealer)
                    group.addTask {
                        try await store.update(key) { stored in
                            if let stored { return stored }
                            signings.withLockedValue { $0 += 1 }
                            // Signing takes a moment: long enough for every other caller to
                            // arrive, so only the lock keeps them from signing too.
                            Thread.sleep(forTimeInterval: 0.2)
                            return Token(jwt: "jwt-\(index)", issuedAt: Date(timeIntervalSince1970: 1_800_000_000))
                        }.jwt
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(signings.withLockedValue { $0 } == 1)
            let sealed = try await pools[0].withConnection { connection in
                try connection.query("SELECT token_sealed FROM apns_provider_tokens").rows.map {
                    try $0.string("token_sealed")
                }
            }
            #expect(sealed.count == 1 && !sealed.contains { $0.contains("jwt-") })
            let stored = try await SharedProviderTokenStore(pool: pools[0], sealer: sealer).current(key)
            #expect(stored.map { tokens.contains($0.jwt) } == true)
            #expect(stored?.issuedAt == Date(timeIntervalSince1970: 1_800_000_000))
            // Under another master key the token cannot be opened: as good as none.
            let stranger = SharedProviderTokenStore(
                pool: pools[0], sealer: SecretSealer(current: try MasterKey.generate()))
            #expect(try await stranger.current(key) == nil)
        }
        for pool in pools { await pool.shutdown() }
        await database.drop()
        try outcome.get()
    }
}
