import Foundation
import Testing

@testable import PushDelivery

/// The provider token read without entering its actor: only while it is fresh, so every
/// decision past the renewal age is still the actor's.
extension CredentialCacheTests {
    @Test func theFreshProviderTokenIsReadWithoutTheActorOnlyUntilItsRenewalAge() async throws {
        let clock = TestClock()
        let cache = APNsProviderToken(credentials: try Self.credentials(), now: clock.now)
        #expect(cache.freshToken == nil)
        let first = try await cache.token()
        #expect(cache.freshToken == first)
        clock.advance(minutes: 49)
        #expect(cache.freshToken == first)
        clock.advance(minutes: 2)
        #expect(cache.freshToken == nil)
        #expect(try await cache.token() == first)
        await cache.renewalFinished()
        #expect(cache.freshToken == (try await cache.token()))
        #expect(cache.freshToken != first)
    }

    /// The `authorization` value is made once per token, and follows the token when it is renewed;
    /// a token that is not the current one still gets its own.
    @Test func theAuthorizationValueIsTheBearerOfTheTokenGiven() async throws {
        let clock = TestClock()
        let cache = APNsProviderToken(credentials: try Self.credentials(), now: clock.now)
        #expect(cache.authorization(for: "a.b.c") == "bearer a.b.c")
        let first = try await cache.token()
        #expect(cache.authorization(for: first) == "bearer " + first)
        clock.advance(minutes: 51)
        _ = try await cache.token()
        await cache.renewalFinished()
        let second = try await cache.token()
        #expect(second != first)
        #expect(cache.authorization(for: second) == "bearer " + second)
        #expect(cache.authorization(for: first) == "bearer " + first)
    }
}
