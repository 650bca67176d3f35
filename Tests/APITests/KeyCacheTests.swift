import Foundation
import RegistryCrypto
import Testing

@testable import API

@Suite("KeyCache")
struct KeyCacheTests {
    let caller = Caller(keyID: "k1", scopes: [.admin])
    let digest = SHA256.digest("drk_h")

    @Test func trustedOnlyWhileListening() {
        let cache = KeyCache()
        cache.store(caller, for: digest, lookedUpAt: cache.generation)
        #expect(cache.caller(for: digest) == nil, "not listening yet: nothing is cached")
        cache.handle(.listening)
        cache.store(caller, for: digest, lookedUpAt: cache.generation)
        #expect(cache.caller(for: digest)?.keyID == "k1")
        cache.handle(.revoked(keyID: "k1"))
        #expect(cache.caller(for: digest) == nil, "a revocation anywhere empties it")
        cache.store(caller, for: digest, lookedUpAt: cache.generation)
        cache.handle(.interrupted)
        #expect(cache.caller(for: digest) == nil)
        cache.store(caller, for: digest, lookedUpAt: cache.generation)
        #expect(cache.caller(for: digest) == nil, "notifications may be missed while interrupted")
    }

    @Test func aLookupThatRacedARevocationIsNotStored() {
        let cache = KeyCache()
        cache.handle(.listening)
        let generation = cache.generation  // the database lookup starts…
        cache.handle(.revoked(keyID: "k1"))  // …the key is revoked meanwhile…
        cache.store(caller, for: digest, lookedUpAt: generation)  // …and the stale answer arrives
        #expect(cache.caller(for: digest) == nil)
    }

    @Test func entriesExpire() {
        let cache = KeyCache(timeToLive: .seconds(60))
        cache.handle(.listening)
        let now = ContinuousClock.now
        cache.store(caller, for: digest, lookedUpAt: cache.generation, now: now)
        #expect(cache.caller(for: digest, now: now + .seconds(59)) != nil)
        #expect(cache.caller(for: digest, now: now + .seconds(61)) == nil)
    }
}

@Suite("Authenticator")
struct AuthenticatorTests {
    @Test(arguments: [
        ("Bearer drk_x", "drk_x"), ("bearer drk_x", "drk_x"), ("BEARER drk_x", "drk_x"), ("Bearer  drk_x", " drk_x"),
    ])
    func bearerCredentials(header: String, credentials: String) {
        #expect(Authenticator.bearer(header) == credentials[...])
    }

    @Test(arguments: ["Bearer", "Bearer ", "Basic drk_x", "Bearerx drk_x", "Béarer drk_x", ""])
    func notBearer(header: String) {
        #expect(Authenticator.bearer(header) == nil)
    }
}
