import Foundation
import PushRules
import RegistryCore
import RegistryCrypto

/// The OAuth 2.0 access token for one service account (RFC 7523: an RS256 assertion exchanged at
/// the account's `token_uri`), cached until five minutes before it expires and refreshed
/// single-flight: however many pushes need a new token at once, one exchange happens.
actor FCMAccessToken {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    static let refreshMargin: TimeInterval = 5 * 60
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
    private let now: @Sendable () -> Date
    private var current: (token: String, expiresAt: Date)?
    private var refreshing: Task<String, any Error>?
    /// Exchanges made so far, for tests and metrics.
    private(set) var exchanges = 0

    init(account: FCMServiceAccount, pool: HTTP2ConnectionPool, now: @escaping @Sendable () -> Date = Date.init) {
        self.account = account
        self.pool = pool
        self.now = now
    }

    /// A valid access token, or `OutcomeError` with why there is none: `providerAuthFailure` when
    /// Google refuses the account, `transient` when the exchange may work later.
    func token(timeout: Duration) async throws -> String {
        if let current, current.expiresAt.timeIntervalSince(now()) > Self.refreshMargin { return current.token }
        if let refreshing { return try await refreshing.value }
        let exchange = Task { try await self.exchange(timeout: timeout) }
        refreshing = exchange
        defer { refreshing = nil }
        return try await exchange.value
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
            response = try await pool.send(
                PushHTTPRequest(
                    path: account.tokenPath, headers: [("content-type", "application/x-www-form-urlencoded")],
                    body: Array(body.utf8)),
                timeout: timeout)
        } catch {
            throw OutcomeError(outcome: .transient(reason: error.reason, retryAfter: nil))
        }
        exchanges += 1
        let fields = (try? JSONParser.parse(String(decoding: response.body, as: UTF8.self)))?.objectValue ?? [:]
        switch response.status {
        case 200:
            guard let token = fields["access_token"]?.stringValue, let lifetime = fields["expires_in"]?.numberValue
            else { throw OutcomeError(outcome: .transient(reason: "BadTokenResponse", retryAfter: nil)) }
            current = (token, now().addingTimeInterval(lifetime))
            return token
        case 429, 500...:
            let retryAfter = response.header("retry-after").flatMap { RetryAfter.parse($0, now: now()) }
            throw OutcomeError(outcome: .transient(reason: "OAuth HTTP \(response.status)", retryAfter: retryAfter))
        default:
            // invalid_grant (bad key, clock, audience), invalid_scope, unauthorized_client: the
            // account itself is refused.
            let reason = fields["error"]?.stringValue ?? "OAuth HTTP \(response.status)"
            throw OutcomeError(outcome: .providerAuthFailure(reason: reason))
        }
    }
}
