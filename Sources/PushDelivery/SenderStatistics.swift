/// What a sender has done so far, for tests and metrics.
public struct SenderStatistics: Sendable, Equatable {
    public let connectionsOpened: Int
    /// APNs provider tokens signed, or FCM access tokens obtained.
    public let credentialsIssued: Int
}
