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
}
