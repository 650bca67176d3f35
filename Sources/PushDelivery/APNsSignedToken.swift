import Foundation

/// One APNs provider token: the JWT and its `iat`, the moment its age is counted from.
public struct APNsSignedToken: Sendable, Equatable {
    public let jwt: String
    public let issuedAt: Date

    public init(jwt: String, issuedAt: Date) {
        self.jwt = jwt
        self.issuedAt = issuedAt
    }
}
