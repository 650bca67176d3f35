import Foundation

/// Apple's rules for a provider token, as pure decisions over a clock reading: a token serves
/// for an hour, and a key's token may not change more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`). So a token is reused until it is 50 minutes old, and replaced
/// earlier only when APNs answered `ExpiredProviderToken` for that very token: an expired token
/// is past the 20-minute floor by definition, and a report about an older token than the current
/// one is stale (another request, or another instance, has already renewed).
enum APNsProviderTokenRenewal {
    static let renewalAge: TimeInterval = 50 * 60
    static let minimumInterval: TimeInterval = 20 * 60

    /// Why a token is being looked for.
    enum Cause: Equatable {
        /// There is none in memory, or it has reached the renewal age.
        case due
        /// APNs answered `ExpiredProviderToken` for this JWT.
        case expired(jwt: String)
    }

    /// `current` when it may still be used, nil when a new token must be signed. Since
    /// `renewalAge` is past `minimumInterval`, only `.expired` for the current token itself ever
    /// renews inside the 20 minutes.
    static func reuse(_ current: APNsSignedToken?, cause: Cause, now: Date) -> APNsSignedToken? {
        guard let current else { return nil }
        if cause == .expired(jwt: current.jwt) { return nil }
        return isFresh(current, now: now) ? current : nil
    }

    /// Younger than the renewal age: used without asking anyone.
    static func isFresh(_ token: APNsSignedToken, now: Date) -> Bool {
        now.timeIntervalSince(token.issuedAt) < renewalAge
    }

    /// Past the renewal age but safely inside Apple's hour (five minutes spare for clock skew):
    /// still sent with while its renewal runs.
    static func isServable(_ token: APNsSignedToken, now: Date) -> Bool {
        now.timeIntervalSince(token.issuedAt) < servingAge
    }

    static let servingAge: TimeInterval = 55 * 60
}
