import Foundation
import NIOConcurrencyHelpers
import RegistryCrypto
import Testing

@testable import PushDelivery

/// The provider token shared by several instances through one store, each instance an
/// `APNsProviderToken` of its own, with a clock the test moves. The store here is a dictionary
/// behind a lock, standing in for the database row and its advisory lock.
@Suite struct SharedProviderTokenTests {
    typealias Renewal = APNsProviderTokenRenewal
    typealias TestClock = CredentialCacheTests.TestClock

    final class DictionaryStore: APNsProviderTokenStore {
        private let tokens = NIOLockedValueBox([APNsProviderTokenKey: APNsSignedToken]())

        func current(_ key: APNsProviderTokenKey) async throws -> APNsSignedToken? {
            tokens.withLockedValue { $0[key] }
        }

        func update(
            _ key: APNsProviderTokenKey, _ decide: @escaping @Sendable (APNsSignedToken?) throws -> APNsSignedToken
        ) async throws -> APNsSignedToken {
            try tokens.withLockedValue { tokens in
                let chosen = try decide(tokens[key])
                tokens[key] = chosen
                return chosen
            }
        }
    }

    /// A store whose updates wait while it is closed, as a database behind a held lock does.
    final class GatedStore: APNsProviderTokenStore {
        private let inner = DictionaryStore()
        private let gate = NIOLockedValueBox((isOpen: true, waiting: [CheckedContinuation<Void, Never>]()))

        func open() {
            let waiting = gate.withLockedValue { gate in
                gate.isOpen = true
                defer { gate.waiting.removeAll() }
                return gate.waiting
            }
            for waiter in waiting { waiter.resume() }
        }

        func close() {
            gate.withLockedValue { $0.isOpen = false }
        }

        func current(_ key: APNsProviderTokenKey) async throws -> APNsSignedToken? {
            try await inner.current(key)
        }

        func update(
            _ key: APNsProviderTokenKey, _ decide: @escaping @Sendable (APNsSignedToken?) throws -> APNsSignedToken
        ) async throws -> APNsSignedToken {
            await withCheckedContinuation { continuation in
                let isOpen = gate.withLockedValue { gate in
                    if !gate.isOpen { gate.waiting.append(continuation) }
                    return gate.isOpen
                }
                if isOpen { continuation.resume() }
            }
            return try await inner.update(key, decide)
        }
    }

    struct UnreachableStore: APNsProviderTokenStore {
        struct Unreachable: Error {}
        func current(_ key: APNsProviderTokenKey) async throws -> APNsSignedToken? { throw Unreachable() }
        func update(
            _ key: APNsProviderTokenKey, _ decide: @escaping @Sendable (APNsSignedToken?) throws -> APNsSignedToken
        ) async throws -> APNsSignedToken { throw Unreachable() }
    }

    /// Three instances of one key on one store and clock.
    static func instances(_ clock: TestClock, store: any APNsProviderTokenStore = DictionaryStore()) throws
        -> [APNsProviderToken]
    {
        let credentials = try CredentialCacheTests.credentials()
        return (0..<3).map { _ in APNsProviderToken(credentials: credentials, store: store, now: clock.now) }
    }

    static func signings(_ instances: [APNsProviderToken]) async -> Int {
        var total = 0
        for instance in instances { total += await instance.signings }
        return total
    }

    @Test func theRulesRenewInsideTwentyMinutesOnlyForAnExpiredAnswerAboutTheTokenItself() {
        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        let token = APNsSignedToken(jwt: "a", issuedAt: issued)
        let tenMinutes = issued + 10 * 60
        #expect(Renewal.reuse(token, cause: .due, now: tenMinutes) == token)
        #expect(Renewal.reuse(token, cause: .expired(jwt: "older"), now: tenMinutes) == token)
        #expect(Renewal.reuse(token, cause: .expired(jwt: "a"), now: tenMinutes) == nil)
        #expect(Renewal.reuse(token, cause: .due, now: issued + 49 * 60) == token)
        #expect(Renewal.reuse(token, cause: .due, now: issued + 50 * 60) == nil)
        #expect(Renewal.reuse(nil, cause: .due, now: tenMinutes) == nil)
        #expect(Renewal.renewalAge > Renewal.minimumInterval)
    }

    @Test func threeInstancesSignOneTokenAndTheOthersAdoptIt() async throws {
        let instances = try Self.instances(TestClock())
        var tokens = Set<String>()
        for instance in instances { tokens.insert(try await instance.token()) }
        #expect(tokens.count == 1)
        #expect(await Self.signings(instances) == 1)
        #expect(await instances[1].adoptions == 1)
        #expect(await instances[2].adoptions == 1)
    }

    /// At the renewal age each instance asks the store: the first renews, the others take its
    /// token, so the window still has one signing.
    @Test func atTheRenewalAgeOneInstanceRenewsAndTheOthersAdopt() async throws {
        let clock = TestClock()
        let instances = try Self.instances(clock)
        let first = try await instances[0].token()
        for instance in instances.dropFirst() { #expect(try await instance.token() == first) }
        clock.advance(minutes: 49)
        for instance in instances { #expect(try await instance.token() == first) }
        clock.advance(minutes: 2)
        for instance in instances {
            #expect(try await instance.token() == first)  // Serves while the renewal runs.
            await instance.renewalFinished()
        }
        var renewed = Set<String>()
        for instance in instances { renewed.insert(try await instance.token()) }
        #expect(renewed.count == 1 && !renewed.contains(first))
        #expect(await Self.signings(instances) == 2)
    }

    /// Every instance hears `ExpiredProviderToken` for the same token: one renews, and the
    /// others' reports, now about a replaced token, adopt the new one instead of signing again.
    @Test func anExpiredTokenReportedByEveryInstanceIsRenewedOnce() async throws {
        let clock = TestClock()
        let instances = try Self.instances(clock)
        var expired = ""
        for instance in instances { expired = try await instance.token() }
        clock.advance(minutes: 5)
        for instance in instances { await instance.expired(expired) }
        var renewed = Set<String>()
        for instance in instances { renewed.insert(try await instance.token()) }
        #expect(renewed.count == 1 && !renewed.contains(expired))
        #expect(await Self.signings(instances) == 2)
    }

    /// `TooManyProviderTokenUpdates` means another instance put a newer token in use: the stale
    /// instance adopts it, and nothing is signed for that answer, even when the store has no
    /// newer token.
    @Test func aRefusedTokenIsOnlyEverReplacedByTheStoredOne() async throws {
        let instances = try Self.instances(TestClock())
        let first = try await instances[0].token()
        #expect(try await instances[1].token() == first)
        await instances[0].expired(first)
        let second = try await instances[0].token()
        await instances[1].refused(first)
        #expect(try await instances[1].token() == second)
        await instances[0].refused(second)
        #expect(try await instances[0].token() == second)
        #expect(await Self.signings(instances) == 2)
    }

    /// Without the database each instance signs for itself, by the same rules as one alone.
    @Test func anUnreachableStoreLeavesEachInstanceSigningItsOwn() async throws {
        let clock = TestClock()
        let instances = try Self.instances(clock, store: UnreachableStore())
        let first = try await instances[0].token()
        clock.advance(minutes: 30)
        #expect(try await instances[0].token() == first)
        _ = try await instances[1].token()
        #expect(await Self.signings(instances) == 2)
    }
}
