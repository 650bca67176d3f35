import Foundation
import NIOConcurrencyHelpers
import NIOHPACK
import PushRules
import RegistryCore
import RegistryCrypto

/// The OAuth 2.0 access token for one service account (RFC 7523: an RS256 assertion exchanged at
/// the account's `token_uri`), cached and refreshed single-flight: however many pushes need a
/// new token at once, one exchange happens. From five minutes before it expires the token keeps
/// serving while the exchange runs in the background, so neither a slow nor a failing token
/// endpoint holds or fails a push the current token can still send; only a sender without a
/// usable token waits for the exchange.
actor FCMAccessToken {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    static let refreshMargin: TimeInterval = 5 * 60
    /// Closer to its expiry than this, a token is not sent with: it could expire in flight.
    static let minimumLife: TimeInterval = 60
    /// A background exchange's own limit, and the pause after one fails before the next.
    static let backgroundTimeout: Duration = .seconds(30)
    static let retryInterval: TimeInterval = 30
    static let assertionLifetime = 3600

    private struct Assertion: Encodable {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int
    }

    private let account: FCMServiceAccount
    private let pool: HTTP2ConnectionPool
    /// Where each exchange runs, so the engine's shutdown waits for it.
    private let tasks: any BackgroundTasks
    private let now: @Sendable () -> Date
    private var current: (token: String, expiresAt: Date)? {
        didSet { published.withLockedValue { $0 = current } }
    }
    /// `current`, readable without the actor (`freshToken`).
    private let published = NIOLockedValueBox<(token: String, expiresAt: Date)?>(nil)
    private var refreshing: Task<String, any Error>?
    private var lastFailure: Date?
    /// Exchanges made so far, for tests and metrics.
    private(set) var exchanges = 0

    init(
        account: FCMServiceAccount, pool: HTTP2ConnectionPool, tasks: any BackgroundTasks = UnownedTasks(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.account = account
        self.pool = pool
        self.tasks = tasks
        self.now = now
    }

    /// The current token while it is far from its expiry, read without entering the actor: what
    /// nearly every push sends with. Nil when `token(timeout:)` has something to decide.
    nonisolated var freshToken: String? {
        guard let current = published.withLockedValue({ $0 }),
            current.expiresAt.timeIntervalSince(now()) > Self.refreshMargin
        else { return nil }
        return current.token
    }

    /// A valid access token, or the outcome that ends the attempt without one:
    /// `providerAuthFailure` when Google refuses the account (or the assertion cannot be signed),
    /// `transient` when the exchange may work later.
    func token(timeout: Duration) async throws(PushOutcome) -> String {
        if let current {
            let left = current.expiresAt.timeIntervalSince(now())
            if left > Self.refreshMargin { return current.token }
            if left > Self.minimumLife {
                let pausing = lastFailure.map { now().timeIntervalSince($0) < Self.retryInterval } ?? false
                if refreshing == nil, !pausing { startExchange(timeout: Self.backgroundTimeout) }
                return current.token
            }
        }
        do {
            return try await (refreshing ?? startExchange(timeout: timeout)).value
        } catch let outcome as PushOutcome {
            throw outcome
        } catch {
            throw .providerAuthFailure(reason: "AssertionSigningFailed")
        }
    }

    /// Returns once no exchange is running (for tests).
    func exchangeFinished() async {
        _ = try? await refreshing?.value
    }

    @discardableResult
    private func startExchange(timeout: Duration) -> Task<String, any Error> {
        // Set before the task can run its first step on this actor, which clears it at the end.
        let task = tasks.start { try await self.exchangeOnce(timeout: timeout) }
        refreshing = task
        return task
    }

    private func exchangeOnce(timeout: Duration) async throws -> String {
        defer { refreshing = nil }
        do {
            return try await exchange(timeout: timeout)
        } catch {
            lastFailure = now()
            throw error
        }
    }

    /// FCM refused `token` (401): the next `token()` exchanges again.
    func refused(_ token: String) {
        if current?.token == token { current = nil }
    }

    private func exchange(timeout: Duration) async throws -> String {
        let issuedAt = Int(now().timeIntervalSince1970)
        let assertion = try JSONWebToken.sign(
            claims: Assertion(
                iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: issuedAt,
                exp: issuedAt + Self.assertionLifetime),
            keyID: account.privateKeyID, with: account.key)
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let response: PushHTTPResponse
        do {
            var request = PushHTTPRequest(
                authority: pool.authority, path: account.tokenPath, body: Array(body.utf8), fields: 1)
            request.add("content-type", "application/x-www-form-urlencoded")
            response = try await pool.send(request, timeout: timeout)
        } catch {
            throw PushOutcome.transient(reason: error.reason, retryAfter: nil)
        }
        exchanges += 1
        let fields = (try? JSONParser.parse(String(decoding: response.body, as: UTF8.self)))?.objectValue ?? [:]
        switch response.status {
        case 200:
            guard let token = fields["access_token"]?.stringValue, let lifetime = fields["expires_in"]?.numberValue
            else { throw PushOutcome.transient(reason: "BadTokenResponse", retryAfter: nil) }
            current = (token, now().addingTimeInterval(lifetime))
            return token
        case 429, 500...:
            let retryAfter = response.header("retry-after").flatMap { RetryAfter.parse($0, now: now()) }
            throw PushOutcome.transient(reason: "OAuth HTTP \(response.status)", retryAfter: retryAfter)
        default:
            // invalid_grant (bad key, clock, audience), invalid_scope, unauthorized_client: the
            // account itself is refused.
            let reason = fields["error"]?.stringValue ?? "OAuth HTTP \(response.status)"
            throw PushOutcome.providerAuthFailure(reason: reason)
        }
    }
}
