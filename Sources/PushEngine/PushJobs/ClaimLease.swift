import NIOConcurrencyHelpers

/// What a worker knows of one claim while sending it: until when its lease surely holds (from
/// the start of the last renewal that succeeded) and whether the job was still live then. A push
/// starts only while both hold, so a worker cut off from the database stops when another
/// instance may take its devices over, and a cancel stops it at the next renewal.
final class ClaimLease: Sendable {
    private struct State {
        var validUntil: ContinuousClock.Instant
        var jobLive = true
    }

    private let state: NIOLockedValueBox<State>

    init(validUntil: ContinuousClock.Instant) {
        state = NIOLockedValueBox(State(validUntil: validUntil))
    }

    func renewed(until validUntil: ContinuousClock.Instant, jobLive: Bool) {
        state.withLockedValue {
            $0.validUntil = max($0.validUntil, validUntil)
            $0.jobLive = $0.jobLive && jobLive
        }
    }

    /// No more pushes start (the worker is shutting down).
    func stop() {
        state.withLockedValue { $0.jobLive = false }
    }

    var allowsStarting: Bool {
        state.withLockedValue { $0.jobLive && ContinuousClock.now < $0.validUntil }
    }
}
