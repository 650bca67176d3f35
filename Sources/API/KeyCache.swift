import NIOConcurrencyHelpers
import RegistryCrypto
import Store

/// Live keys recently seen, so that most requests authenticate without a database round trip.
///
/// Only trusted while `APIKeyChanges` is LISTENing for key changes: every revocation
/// notifies, and a notification, or the listener losing its session, empties the cache. A lookup
/// that raced with a revocation cannot put the revoked key back: entries are only stored if no
/// clear happened since the lookup began (`generation`). Entries also expire after `timeToLive`, which
/// bounds `last_used_at` staleness. Revocations through this process clear it before answering.
final class KeyCache: Sendable {
    private struct State {
        var trusted = false
        var generation = 0
        var entries: [SHA256.Digest: (caller: Caller, storedAt: ContinuousClock.Instant)] = [:]
    }

    let timeToLive: Duration
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(timeToLive: Duration = .seconds(60), capacity: Int = 10_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The caller for a secret's digest, when cached, fresh and trusted.
    func caller(for secretDigest: SHA256.Digest, now: ContinuousClock.Instant = .now) -> Caller? {
        state.withLockedValue { state in
            guard state.trusted, let entry = state.entries[secretDigest], now - entry.storedAt < timeToLive else {
                return nil
            }
            return entry.caller
        }
    }

    /// Where a database lookup starts; pass it back to `store`.
    var generation: Int { state.withLockedValue { $0.generation } }

    func store(
        _ caller: Caller, for secretDigest: SHA256.Digest, lookedUpAt generation: Int,
        now: ContinuousClock.Instant = .now
    ) {
        state.withLockedValue { state in
            guard state.trusted, state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[secretDigest] = (caller, now)
        }
    }

    func clear() {
        state.withLockedValue { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }

    func handle(_ event: APIKeyChanges.Event) {
        state.withLockedValue { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
            switch event {
            case .listening: state.trusted = true
            case .interrupted: state.trusted = false
            case .revoked: break
            }
        }
    }
}
