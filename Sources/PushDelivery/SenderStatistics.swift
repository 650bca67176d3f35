/// What a sender has done so far and holds now, for tests and metrics.
public struct SenderStatistics: Sendable, Equatable {
    public let connectionsOpened: Int
    /// APNs provider tokens signed, or FCM access tokens obtained.
    public let credentialsIssued: Int
    /// APNs provider tokens taken from the shared store that another instance signed.
    public var credentialsAdopted = 0
    /// Connections open now (not retired), and streams in use on them.
    public let openConnections: Int
    public let openStreams: Int
}
