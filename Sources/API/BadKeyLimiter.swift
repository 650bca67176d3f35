import Foundation
import Synchronization

/// Slows down guessing: a client address that presents more than `limit` bad keys within
/// `window` is answered 429 until the window it started has passed. Other addresses are
/// unaffected. In memory and per process; bounded to `maxTrackedClients` addresses, dropping the
/// oldest windows first.
final class BadKeyLimiter: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var failures: Int
    }

    let limit: Int
    let window: Duration
    let maxTrackedClients: Int
    private let windows = Mutex<[String: Window]>([:])

    init(limit: Int = 10, window: Duration = .seconds(60), maxTrackedClients: Int = 10_000) {
        self.limit = limit
        self.window = window
        self.maxTrackedClients = maxTrackedClients
    }

    /// Seconds the client must wait, or nil when it may try.
    func retryAfter(client: String, now: ContinuousClock.Instant = .now) -> Int? {
        windows.withLock { windows in
            guard let entry = windows[client], entry.failures >= limit else { return nil }
            let remaining = entry.start + window - now
            guard remaining > .zero else {
                windows[client] = nil
                return nil
            }
            return max(1, Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0))
        }
    }

    func recordFailure(client: String, now: ContinuousClock.Instant = .now) {
        windows.withLock { windows in
            if var entry = windows[client], now - entry.start < window {
                entry.failures += 1
                windows[client] = entry
                return
            }
            if windows.count >= maxTrackedClients, windows[client] == nil {
                let expired = windows.filter { now - $0.value.start >= window }.map(\.key)
                for key in expired { windows[key] = nil }
                if windows.count >= maxTrackedClients, let oldest = windows.min(by: { $0.value.start < $1.value.start })
                {
                    windows[oldest.key] = nil
                }
            }
            windows[client] = Window(start: now, failures: 1)
        }
    }
}
