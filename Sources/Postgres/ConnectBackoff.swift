/// When to try connecting again after a failure. While PostgreSQL is down, callers fail fast with
/// `.unavailable` instead of each waiting for a connect attempt; one caller per window probes. The
/// window doubles from 50 ms up to 1 s, so recovery is noticed within about a second.
struct ConnectBackoff {
    static let initialDelay: Duration = .milliseconds(50)
    static let maximumDelay: Duration = .seconds(1)

    private var retryAt: ContinuousClock.Instant?
    private var delay: Duration = .zero
    private var probing = false

    /// Whether a caller may try to connect now. Always while connecting works; after a failure only
    /// one caller, once the window has passed.
    mutating func mayConnect(at now: ContinuousClock.Instant) -> Bool {
        guard let retryAt else { return true }
        guard !probing, now >= retryAt else { return false }
        probing = true
        return true
    }

    /// Returns whether this ends an outage (worth a log line).
    mutating func succeeded() -> Bool {
        defer { (retryAt, delay, probing) = (nil, .zero, false) }
        return retryAt != nil
    }

    /// Returns whether this starts an outage (worth a log line).
    mutating func failed(at now: ContinuousClock.Instant) -> Bool {
        let startsOutage = retryAt == nil
        // Several callers that were already connecting when the server went away count once.
        if probing || startsOutage {
            delay = startsOutage ? Self.initialDelay : min(delay * 2, Self.maximumDelay)
            retryAt = now + delay
        }
        probing = false
        return startsOutage
    }
}
