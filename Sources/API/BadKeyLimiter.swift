import NIOConcurrencyHelpers
import NIOCore

/// Slows down guessing: a client that presents more than `limit` bad keys within `window` is
/// answered 429 until the window it started has passed. Other clients are unaffected, and a
/// client's valid keys are checked before it is asked to wait (see `Authenticator`). In memory and
/// per process; bounded to `maxTrackedClients`, dropping the oldest windows first.
final class BadKeyLimiter: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var failures: Int
    }

    private struct State {
        var windows: [String: Window] = [:]
        /// Every window's client in the order the windows started, which is the order they
        /// expire in (all last `window`): the oldest is always first, so making room never scans.
        /// A client starts a new window only once its last one has expired, and expired windows
        /// leave from the front before a window is added, so no client stands here twice.
        var starts = CircularBuffer<(client: String, start: ContinuousClock.Instant)>()
    }

    let limit: Int
    let window: Duration
    let maxTrackedClients: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int = 10, window: Duration = .seconds(60), maxTrackedClients: Int = 10_000) {
        self.limit = limit
        self.window = window
        self.maxTrackedClients = maxTrackedClients
    }

    /// Seconds the client must wait, or nil when it may try.
    func retryAfter(client: String, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLockedValue { state in
            guard let entry = state.windows[client], entry.failures >= limit else { return nil }
            let remaining = entry.start + window - now
            guard remaining > .zero else { return nil }
            return max(1, Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0))
        }
    }

    func recordFailure(client: String, now: ContinuousClock.Instant = .now) {
        state.withLockedValue { state in
            if var entry = state.windows[client], now - entry.start < window {
                entry.failures += 1
                state.windows[client] = entry
                return
            }
            dropExpired(from: &state, now: now)
            if state.windows[client] == nil, state.windows.count >= maxTrackedClients,
                let oldest = state.starts.popFirst()
            {
                state.windows[oldest.client] = nil
            }
            state.windows[client] = Window(start: now, failures: 1)
            state.starts.append((client, now))
        }
    }

    /// The expired windows leave from the front.
    private func dropExpired(from state: inout State, now: ContinuousClock.Instant) {
        while let first = state.starts.first, now - first.start >= window {
            state.starts.removeFirst()
            if state.windows[first.client]?.start == first.start { state.windows[first.client] = nil }
        }
    }
}
