import NIOConcurrencyHelpers

/// Where this instance stands between start and stop. `/readyz` answers from it, and while the
/// database is being set up (migrations can take minutes) every route but the operational ones
/// answers 503 with Retry-After, so the server can listen (and pass a liveness probe) from the
/// first second.
public final class ServingState: Sendable {
    public enum Phase: String, Sendable {
        /// Preflight, migrations and start-up checks are running (or waiting for the database).
        case migrating
        case serving
        /// Shutting down: `/readyz` is 503 so load balancers stop sending before the listener closes.
        case draining
    }

    private let phase: NIOLockedValueBox<Phase>

    public init(_ phase: Phase = .serving) {
        self.phase = NIOLockedValueBox(phase)
    }

    public var current: Phase { phase.withLockedValue { $0 } }

    /// The database is set up: every route answers.
    public func startServing() {
        phase.withLockedValue { $0 = .serving }
    }

    /// Shutdown began. Only a serving instance drains; one still setting up stays `migrating`,
    /// its routes still closed.
    public func startDraining() {
        phase.withLockedValue { if $0 == .serving { $0 = .draining } }
    }
}
