import Foundation
import RegistryCrypto

/// The APNs provider token (an ES256 JWT) for one key, signed once and reused: Apple accepts a
/// token for an hour and refuses new ones more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so it is renewed after 50 minutes, or when APNs answers
/// `ExpiredProviderToken` for it.
actor APNsProviderToken {
    static let renewalAge: TimeInterval = 50 * 60

    private struct Claims: Encodable {
        let iss: String
        let iat: Int
    }

    private let credentials: APNsCredentials
    private let now: @Sendable () -> Date
    private var current: (token: String, issuedAt: Date)?
    /// Tokens signed so far, for tests and metrics.
    private(set) var signings = 0

    init(credentials: APNsCredentials, now: @escaping @Sendable () -> Date = Date.init) {
        self.credentials = credentials
        self.now = now
    }

    func token() throws -> String {
        let now = now()
        if let current, now.timeIntervalSince(current.issuedAt) < Self.renewalAge { return current.token }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try JSONWebToken.sign(
            claims: Claims(iss: credentials.teamID, iat: Int(issuedAt.timeIntervalSince1970)),
            keyID: credentials.keyID, with: credentials.key)
        current = (token, issuedAt)
        signings += 1
        return token
    }

    /// APNs said `token` has expired: the next `token()` signs a new one. An older token than
    /// the current one changes nothing — another request already caused the renewal.
    func expired(_ token: String) {
        if current?.token == token { current = nil }
    }
}
