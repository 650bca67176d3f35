/// Where the instances of one deployment keep each key's current provider token, so N instances
/// sign one token per renewal window, not N (Apple answers `TooManyProviderTokenUpdates`
/// otherwise). Implemented over the database by the layer that owns it; without one, each
/// process signs its own, as a single instance would.
public protocol APNsProviderTokenStore: Sendable {
    /// The token stored for `key`, read without waiting for a renewal in progress.
    func current(_ key: APNsProviderTokenKey) async throws -> APNsSignedToken?

    /// Holding a lock on `key` that every instance takes, so one decides at a time: passes the
    /// stored token to `decide`, stores what it returns when that is a different token, and
    /// returns it. `decide` may sign, so it must be quick and may be run more than once.
    func update(
        _ key: APNsProviderTokenKey, _ decide: @escaping @Sendable (APNsSignedToken?) throws -> APNsSignedToken
    ) async throws -> APNsSignedToken
}
