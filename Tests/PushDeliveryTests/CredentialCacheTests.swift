import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import PushTestSupport
import RegistryCore
import RegistryCrypto
import Testing

@testable import PushDelivery

/// The provider token and access token caches, with a clock the test moves.
@Suite struct CredentialCacheTests {
    final class TestClock: Sendable {
        private let current = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { current.withLockedValue { $0 } }
        func advance(minutes: Double) { current.withLockedValue { $0 += minutes * 60 } }
    }

    static func credentials() throws -> APNsCredentials {
        APNsCredentials(teamID: "ABCDE12345", keyID: "XYZ987WVU6", key: try SigningKey.generate(.es256))
    }

    @Test func theProviderTokenIsReusedFor50MinutesThenRenewed() async throws {
        let clock = TestClock()
        let cache = APNsProviderToken(credentials: try Self.credentials(), now: clock.now)
        let first = try await cache.token()
        clock.advance(minutes: 49)
        #expect(try await cache.token() == first)
        clock.advance(minutes: 2)
        // Past the renewal age the token still serves while its renewal runs.
        #expect(try await cache.token() == first)
        await cache.renewalFinished()
        let renewed = try await cache.token()
        #expect(renewed != first)
        #expect(await cache.signings == 2)
        clock.advance(minutes: 56)
        // Too old to trust: the push waits for the renewal.
        #expect(try await cache.token() != renewed)
    }

    /// A renewal that waits on the store (the database) holds no push while the current token
    /// is still good.
    @Test func aRenewalWaitingOnTheStoreHoldsNoPush() async throws {
        let clock = TestClock()
        let store = SharedProviderTokenTests.GatedStore()
        let cache = APNsProviderToken(credentials: try Self.credentials(), store: store, now: clock.now)
        let first = try await cache.token()
        store.close()
        clock.advance(minutes: 52)
        #expect(try await cache.token() == first)
        #expect(try await cache.token() == first)
        store.open()
        await cache.renewalFinished()
        #expect(try await cache.token() != first)
    }

    @Test func anExpiredAnswerRenewsOnlyTheTokenItWasAbout() async throws {
        let clock = TestClock()
        let cache = APNsProviderToken(credentials: try Self.credentials(), now: clock.now)
        let first = try await cache.token()
        clock.advance(minutes: 21)
        await cache.expired(first)
        let second = try await cache.token()
        #expect(second != first)
        await cache.expired(first)  // A late answer about the old token changes nothing.
        #expect(try await cache.token() == second)
        #expect(await cache.signings == 2)
    }

    @Test func theProviderTokenCarriesKidIssAndANumericIat() async throws {
        let credentials = try Self.credentials()
        let token = try await APNsProviderToken(credentials: credentials, now: TestClock().now).token()
        let jws = try #require(CompactJWS(parsing: token))
        #expect(jws.header.keyID == "XYZ987WVU6")
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"iat":1800000000,"iss":"ABCDE12345"}"#)
        #expect(jws.isSigned(by: try credentials.key.verifyingKey()))
    }

    /// Refreshed five minutes before it expires, not after, and in the background: a push
    /// never waits for an expired token to be refused first, nor for the exchange.
    @Test func theAccessTokenIsRefreshedBeforeItExpires() async throws {
        let fixture = try await MockPushFixture.start()
        let account = try FCMServiceAccount(json: JSONParser.parse(fixture.serviceAccountJSON()))
        let pool = HTTP2ConnectionPool(
            endpoint: account.tokenEndpoint,
            tls: try PushTLS.makeContext(additionalCAFile: fixture.certificates.caFile),
            group: MultiThreadedEventLoopGroup.singleton, maximumConnections: 1, connectTimeout: .seconds(5),
            pingInterval: .seconds(60), pingTimeout: .seconds(1))
        // The mock checks assertions against the real clock: start 56 minutes back, so every
        // assertion the test clock signs is still in the past for the mock.
        let clock = TestClock()
        clock.advance(minutes: (Date().timeIntervalSince1970 - clock.now().timeIntervalSince1970) / 60 - 56)
        let cache = FCMAccessToken(account: account, pool: pool, now: clock.now)
        let first = try await cache.token(timeout: .seconds(5))
        clock.advance(minutes: 54)
        #expect(try await cache.token(timeout: .seconds(5)) == first)
        clock.advance(minutes: 1.5)
        // Inside the last five minutes the token still serves while the exchange runs.
        #expect(try await cache.token(timeout: .seconds(5)) == first)
        await cache.exchangeFinished()
        #expect(try await cache.token(timeout: .seconds(5)) != first)
        #expect(await cache.exchanges == 2)
        await pool.close()
        try await fixture.stop()
    }
}
