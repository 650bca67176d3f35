import Foundation
import Metrics
import NIOConcurrencyHelpers
import RegistryCrypto

/// The APNs provider token (an ES256 JWT) for one key, as this process uses it: kept in memory
/// and reused without asking anyone while it is younger than the renewal age
/// (`APNsProviderTokenRenewal`), so a push never waits for the database. When it reaches that
/// age, or APNs refuses it, the deployment's shared `store` decides under its lock: the token
/// another instance already stored is adopted, and only when that one is due too is a new one
/// signed and stored. Without a store, or while it fails, this process signs for itself by the
/// same rules (the store reports the failure).
actor APNsProviderToken {
    typealias Renewal = APNsProviderTokenRenewal

    private struct Claims: Encodable {
        let iss: String
        let iat: Int
    }

    let key: APNsProviderTokenKey
    private let credentials: APNsCredentials
    private let store: (any APNsProviderTokenStore)?
    /// Where each renewal runs, so the engine's shutdown waits for it.
    private let tasks: any BackgroundTasks
    private let now: @Sendable () -> Date
    private var current: APNsSignedToken? {
        didSet { published.withLockedValue { $0 = current.map { Published(token: $0) } } }
    }
    /// `current`, readable without the actor (`freshToken`), with its `authorization` header value.
    private let published = NIOLockedValueBox<Published?>(nil)

    private struct Published {
        let token: APNsSignedToken
        /// `bearer <jwt>`, made once per token: a string of its own on every push.
        let authorization: String

        init(token: APNsSignedToken) {
            self.token = token
            authorization = "bearer " + token.jwt
        }
    }
    /// The store's answer being awaited; every caller meanwhile awaits the same one.
    private var refreshing: Task<APNsSignedToken, any Error>?
    /// Tokens this process signed, and tokens it took from the store that another one signed.
    private(set) var signings = 0
    private(set) var adoptions = 0

    init(
        credentials: APNsCredentials, store: (any APNsProviderTokenStore)? = nil,
        tasks: any BackgroundTasks = UnownedTasks(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.credentials = credentials
        key = APNsProviderTokenKey(credentials)
        self.store = store
        self.tasks = tasks
        self.now = now
    }

    /// The current token while it is fresh, read without entering the actor: what nearly every
    /// push sends with, for which two hops on and off the actor cost more than the check. Nil
    /// when `token()` has something to decide.
    nonisolated var freshToken: String? {
        guard let token = published.withLockedValue({ $0?.token }), Renewal.isFresh(token, now: now()) else {
            return nil
        }
        return token.jwt
    }

    /// The `authorization` header value for `jwt`: the one made for the current token when it is
    /// that token (nearly always), else made now.
    nonisolated func authorization(for jwt: String) -> String {
        if let published = published.withLockedValue({ $0 }), published.token.jwt == jwt {
            return published.authorization
        }
        return "bearer " + jwt
    }

    /// The token to send with. From the renewal age on, the current token keeps serving while
    /// the renewal (which may wait on the store's lock and the database) runs in the background;
    /// only a process with no token, or one too old to trust, waits for it.
    func token() async throws -> String {
        if let current, Renewal.isFresh(current, now: now()) { return current.jwt }
        if let current, Renewal.isServable(current, now: now()) {
            if refreshing == nil { startRefresh(.due) }
            return current.jwt
        }
        return try await (refreshing ?? startRefresh(.due)).value.jwt
    }

    /// Returns once no renewal is running (for tests and orderly shutdown).
    func renewalFinished() async {
        _ = try? await refreshing?.value
    }

    /// APNs said `jwt` has expired: it is replaced, unless it is no longer the current token
    /// (a late answer, or another instance renewed first — the store then hands out that one).
    func expired(_ jwt: String) async {
        if let refreshing { _ = try? await refreshing.value }
        guard current?.jwt == jwt else { return }
        _ = try? await refresh(.expired(jwt: jwt))
    }

    /// APNs answered `TooManyProviderTokenUpdates` to `jwt`: another instance has put a newer
    /// token in use. That one is adopted when the store has it; nothing is ever signed for this
    /// answer, since signing is what it complains about.
    func refused(_ jwt: String) async {
        guard current?.jwt == jwt, let store, let stored = try? await store.current(key), stored.jwt != jwt,
            Renewal.isFresh(stored, now: now())
        else { return }
        use(stored, signedHere: false)
    }

    private func refresh(_ cause: Renewal.Cause) async throws -> APNsSignedToken {
        try await startRefresh(cause).value
    }

    /// One renewal at a time, awaited by whoever needs it and by nobody when it runs ahead.
    @discardableResult
    private func startRefresh(_ cause: Renewal.Cause) -> Task<APNsSignedToken, any Error> {
        // Set before the task can run its first step on this actor, which clears it at the end.
        let task = tasks.start { try await self.obtainOnce(cause) }
        refreshing = task
        return task
    }

    private func obtainOnce(_ cause: Renewal.Cause) async throws -> APNsSignedToken {
        defer { refreshing = nil }
        return try await obtain(cause)
    }

    private func obtain(_ cause: Renewal.Cause) async throws -> APNsSignedToken {
        let (credentials, now) = (credentials, now)
        let signed = NIOLockedValueBox<APNsSignedToken?>(nil)
        let sign: @Sendable () throws -> APNsSignedToken = {
            let token = try Self.sign(credentials, at: now())
            signed.withLockedValue { $0 = token }
            return token
        }
        var token: APNsSignedToken
        if let store,
            let stored = try? await store.update(key, { try Renewal.reuse($0, cause: cause, now: now()) ?? sign() })
        {
            token = stored
        } else {
            token = try Renewal.reuse(current, cause: cause, now: now()) ?? sign()
        }
        use(token, signedHere: signed.withLockedValue { $0 == token })
        return token
    }

    private func use(_ token: APNsSignedToken, signedHere: Bool) {
        guard token != current else { return }
        current = token
        if signedHere {
            signings += 1
            Counter(label: "push_provider_token_renewals_total", dimensions: [("key_id", key.keyID)]).increment()
        } else {
            adoptions += 1
            Counter(label: "push_provider_tokens_adopted_total", dimensions: [("key_id", key.keyID)]).increment()
        }
    }

    private static func sign(_ credentials: APNsCredentials, at now: Date) throws -> APNsSignedToken {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let jwt = try JSONWebToken.sign(
            claims: Claims(iss: credentials.teamID, iat: Int(issuedAt.timeIntervalSince1970)),
            keyID: credentials.keyID, with: credentials.key)
        return APNsSignedToken(jwt: jwt, issuedAt: issuedAt)
    }
}
