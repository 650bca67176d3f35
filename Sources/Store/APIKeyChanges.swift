import Logging
import Postgres

/// Revocations of API keys, made by this process or any other, as they commit: what lets a process
/// cache live keys. Listens on `APIKeyStore.changesChannel` over a session of its own.
public struct APIKeyChanges: Sendable {
    public enum Event: Sendable, Equatable {
        /// Listening; no revocation from now on will be missed.
        case listening
        case revoked(keyID: String)
        /// The session failed; revocations may be missed until the next `.listening`.
        case interrupted
    }

    private let listener: PostgresListener

    public init(configuration: PostgresConfiguration, logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        listener = PostgresListener(
            configuration: configuration, channel: APIKeyStore.changesChannel, logger: logger,
            onEvent: { event in
                switch event {
                case .listening: onEvent(.listening)
                case .notification(let payload): onEvent(.revoked(keyID: payload))
                case .interrupted: onEvent(.interrupted)
                }
            })
    }

    /// Listens until the calling task is cancelled.
    public func run() async {
        await listener.run()
    }
}
