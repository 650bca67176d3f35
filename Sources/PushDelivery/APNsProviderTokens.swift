import NIOConcurrencyHelpers

/// The provider tokens of a process, one per APNs key: an APNs key belongs to a team, not an
/// app, so several providers (apps) may use one key — and Apple counts renewals per key, so they
/// must share its token or they trip `TooManyProviderTokenUpdates` on each other. With a `store`,
/// every instance of the deployment shares it too.
public final class APNsProviderTokens: Sendable {
    public static let shared = APNsProviderTokens()

    private let store: (any APNsProviderTokenStore)?
    private let tokens = NIOLockedValueBox([APNsProviderTokenKey: APNsProviderToken]())

    public init(store: (any APNsProviderTokenStore)? = nil) {
        self.store = store
    }

    /// The key's token; made on first use, its renewals then run in `tasks`.
    func token(for credentials: APNsCredentials, tasks: any BackgroundTasks) -> APNsProviderToken {
        let key = APNsProviderTokenKey(credentials)
        return tokens.withLockedValue { tokens in
            if let existing = tokens[key] { return existing }
            let token = APNsProviderToken(credentials: credentials, store: store, tasks: tasks)
            tokens[key] = token
            return token
        }
    }
}
