/// Counters a test reads to check connection reuse and token caching.
public struct MockPushStatistics: Sendable, Codable, Equatable {
    /// TCP connections accepted since the mock started.
    public let connections: Int
    /// Distinct APNs provider tokens accepted: one per signing, however many pushes use it.
    public let providerTokensAccepted: Int
    /// FCM access tokens issued by the OAuth endpoint.
    public let accessTokensIssued: Int

    enum CodingKeys: String, CodingKey {
        case connections
        case providerTokensAccepted = "provider_tokens_accepted"
        case accessTokensIssued = "access_tokens_issued"
    }
}
