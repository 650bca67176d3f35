import Foundation
import Testing

@testable import API

@Suite("KeyCache")
struct KeyCacheTests {
    let caller = Caller(keyID: "k1", scopes: [.admin])

    @Test func trustedOnlyWhileListening() {
        let cache = KeyCache()
        cache.store(caller, for: "h", lookedUpAt: cache.generation)
        #expect(cache.caller(for: "h") == nil, "not listening yet: nothing is cached")
        cache.handle(.listening)
        cache.store(caller, for: "h", lookedUpAt: cache.generation)
        #expect(cache.caller(for: "h")?.keyID == "k1")
        cache.handle(.revoked(keyID: "k1"))
        #expect(cache.caller(for: "h") == nil, "a revocation anywhere empties it")
        cache.store(caller, for: "h", lookedUpAt: cache.generation)
        cache.handle(.interrupted)
        #expect(cache.caller(for: "h") == nil)
        cache.store(caller, for: "h", lookedUpAt: cache.generation)
        #expect(cache.caller(for: "h") == nil, "notifications may be missed while interrupted")
    }

    @Test func aLookupThatRacedARevocationIsNotStored() {
        let cache = KeyCache()
        cache.handle(.listening)
        let generation = cache.generation  // the database lookup starts…
        cache.handle(.revoked(keyID: "k1"))  // …the key is revoked meanwhile…
        cache.store(caller, for: "h", lookedUpAt: generation)  // …and the stale answer arrives
        #expect(cache.caller(for: "h") == nil)
    }

    @Test func entriesExpire() {
        let cache = KeyCache(timeToLive: .seconds(60))
        cache.handle(.listening)
        let now = ContinuousClock.now
        cache.store(caller, for: "h", lookedUpAt: cache.generation, now: now)
        #expect(cache.caller(for: "h", now: now + .seconds(59)) != nil)
        #expect(cache.caller(for: "h", now: now + .seconds(61)) == nil)
    }
}
