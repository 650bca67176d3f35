import NIOConcurrencyHelpers

/// The provider list as last read, so that a push need not query it each time: `POST /v1/push`
/// reads it once per request, and at thousands of pushes a second that query cost more than the
/// push itself.
///
/// Freshness: a write through the same `ProviderStore` drops the snapshot once it has committed,
/// and a read that began before a drop is never stored (`generation`), so this process always sees
/// its own writes. Writes by other instances or the CLI are seen within the reader's `maximumAge`.
final class ProviderSnapshot: Sendable {
    private struct State {
        var generation = 0
        var snapshot: (providers: [StoredProvider], readAt: ContinuousClock.Instant)?
    }

    private let state = NIOLockedValueBox(State())

    /// The providers read no longer than `maximumAge` ago, if any.
    func providers(readWithin maximumAge: Duration, now: ContinuousClock.Instant = .now) -> [StoredProvider]? {
        state.withLockedValue { state in
            guard let snapshot = state.snapshot, snapshot.readAt.duration(to: now) <= maximumAge else { return nil }
            return snapshot.providers
        }
    }

    /// Where a read starts; pass it back to `store`.
    var generation: Int { state.withLockedValue { $0.generation } }

    /// Keeps `providers`, read starting at `generation` and at `readAt`, unless a write committed
    /// since the read began.
    func store(_ providers: [StoredProvider], readStartingAt generation: Int, readAt: ContinuousClock.Instant) {
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            state.snapshot = (providers, readAt)
        }
    }

    /// A provider changed: the next read goes to the database.
    func invalidate() {
        state.withLockedValue { state in
            state.generation += 1
            state.snapshot = nil
        }
    }
}
