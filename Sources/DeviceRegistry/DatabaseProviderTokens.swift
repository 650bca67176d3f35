import Logging
import NIOConcurrencyHelpers
import PushDelivery
import Store

/// The APNs provider tokens shared by every instance, kept in the database (`Store`) for the push
/// senders (`PushDelivery`), which know only their protocol. When the database cannot be used,
/// the senders sign for themselves; that is logged once, and once more when sharing resumes.
struct DatabaseProviderTokens: APNsProviderTokenStore {
    let store: SharedProviderTokenStore
    let logger: Logger
    private let failing = NIOLockedValueBox(false)

    init(store: SharedProviderTokenStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    func current(_ key: APNsProviderTokenKey) async throws -> APNsSignedToken? {
        try await reporting { try await store.current(Self.key(key)).map(Self.token) }
    }

    func update(
        _ key: APNsProviderTokenKey, _ decide: @escaping @Sendable (APNsSignedToken?) throws -> APNsSignedToken
    ) async throws -> APNsSignedToken {
        try await reporting {
            Self.token(
                try await store.update(Self.key(key)) { stored in
                    let chosen = try decide(stored.map(Self.token))
                    return SharedProviderTokenStore.Token(jwt: chosen.jwt, issuedAt: chosen.issuedAt)
                })
        }
    }

    private func reporting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            let recovered = failing.withLockedValue { failing in
                defer { failing = false }
                return failing
            }
            if recovered {
                logger.info("the APNs provider token is shared through the database again")
            }
            return value
        } catch {
            let firstFailure = failing.withLockedValue { failing in
                defer { failing = true }
                return !failing
            }
            if firstFailure {
                logger.warning(
                    "the shared APNs provider token cannot be read or stored: this instance signs its own until the database answers",
                    metadata: ["error": "\(error)"])
            }
            throw error
        }
    }

    private static func key(_ key: APNsProviderTokenKey) -> SharedProviderTokenStore.Key {
        SharedProviderTokenStore.Key(teamID: key.teamID, keyID: key.keyID, fingerprint: key.fingerprint)
    }

    private static func token(_ token: SharedProviderTokenStore.Token) -> APNsSignedToken {
        APNsSignedToken(jwt: token.jwt, issuedAt: token.issuedAt)
    }
}
