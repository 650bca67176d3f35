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
    private let logger: Logger

    /// `configuration` should reach PostgreSQL directly: through a pooler there is no listening,
    /// so no `.listening` event ever comes (a key cache stays off).
    public init(configuration: PostgresConfiguration, logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        self.logger = logger
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
        guard await listener.run() == .behindPooler else { return }
        logger.warning(
            """
            API key cache off: the connection for LISTEN goes through a connection pooler (PgBouncer), \
            where a LISTEN does not hold, so every request reads its key from the database; point \
            DATABASE_LISTEN_URL straight at PostgreSQL to cache keys
            """)
        // Like listening, this ends only when cancelled: whoever runs it beside a server expects so.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}
