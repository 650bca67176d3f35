import Foundation

/// An answer the mock is told to give instead of its own, for the next matching request(s):
/// any status and reason, a `Retry-After`, a delay, or a GOAWAY, a dropped connection or
/// silence instead of an answer. Sent as JSON to `POST /_mock/replies`, or passed to `MockPushServer.script`.
public struct MockReply: Sendable, Codable, Equatable {
    public enum Service: String, Sendable, Codable {
        case apns
        case fcm
    }

    /// What happens to the connection instead of answering.
    public enum ConnectionAction: String, Sendable, Codable {
        /// GOAWAY naming the stream before this one as the last processed, then close: the
        /// request was not handled and may be retried on a new connection.
        case goaway
        /// Close the TCP connection without a word (after reading the request: with a delay,
        /// "read it, never answer, then close").
        case drop
        /// Read the request and never answer it; the connection stays up and answers PINGs, as
        /// a service that lost one request would.
        case silence
    }

    public var service: Service
    /// Only requests for this device token (APNs path token or FCM `message.token`); nil for any.
    public var token: String?
    public var status: Int
    /// APNs `reason` or FCM `errorCode`.
    public var reason: String?
    /// FCM only: the `google.rpc.BadRequest` field violation to report, e.g. `message.token`.
    public var field: String?
    /// APNs 410 `timestamp`, milliseconds since the epoch.
    public var timestamp: Int64?
    /// `Retry-After` in seconds.
    public var retryAfter: Int?
    /// Wait this long before answering (or before the connection action).
    public var delayMilliseconds: Int?
    public var connection: ConnectionAction?
    /// How many matching requests get this reply; it is used up after that.
    public var times: Int

    public init(
        service: Service, token: String? = nil, status: Int = 200, reason: String? = nil, field: String? = nil,
        timestamp: Int64? = nil,
        retryAfter: Int? = nil, delayMilliseconds: Int? = nil, connection: ConnectionAction? = nil, times: Int = 1
    ) {
        self.service = service
        self.token = token
        self.status = status
        self.reason = reason
        self.field = field
        self.timestamp = timestamp
        self.retryAfter = retryAfter
        self.delayMilliseconds = delayMilliseconds
        self.connection = connection
        self.times = times
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            service: try container.decode(Service.self, forKey: .service),
            token: try container.decodeIfPresent(String.self, forKey: .token),
            status: try container.decodeIfPresent(Int.self, forKey: .status) ?? 200,
            reason: try container.decodeIfPresent(String.self, forKey: .reason),
            field: try container.decodeIfPresent(String.self, forKey: .field),
            timestamp: try container.decodeIfPresent(Int64.self, forKey: .timestamp),
            retryAfter: try container.decodeIfPresent(Int.self, forKey: .retryAfter),
            delayMilliseconds: try container.decodeIfPresent(Int.self, forKey: .delayMilliseconds),
            connection: try container.decodeIfPresent(ConnectionAction.self, forKey: .connection),
            times: try container.decodeIfPresent(Int.self, forKey: .times) ?? 1)
    }

    enum CodingKeys: String, CodingKey {
        case service, token, status, reason, field, timestamp, times, connection
        case retryAfter = "retry_after"
        case delayMilliseconds = "delay_ms"
    }
}
