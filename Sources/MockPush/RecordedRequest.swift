import Foundation

/// Everything the mock saw of one push or token request, for tests and `GET /_mock/requests`.
/// Credentials are summarised (`credential`), never kept: no `authorization` header, and no body
/// for token requests (it carries the signed assertion).
public struct RecordedRequest: Sendable, Codable, Equatable {
    public enum Endpoint: String, Sendable, Codable {
        case apns
        case fcm
        case oauth
    }

    public let endpoint: Endpoint
    public let connection: Int
    public let method: String
    public let path: String
    public let headers: [String: String]
    /// The device token: APNs' path segment or FCM's `message.token`.
    public let deviceToken: String?
    /// Who the credential names: the APNs JWT's `kid`/`iss`/`iat`, or the FCM client email.
    public let credential: String?
    public let body: String
    public let status: Int
    public let reason: String?
    public let receivedAt: Date

    enum CodingKeys: String, CodingKey {
        case endpoint, connection, method, path, headers, credential, body, status, reason
        case deviceToken = "device_token"
        case receivedAt = "received_at"
    }
}
