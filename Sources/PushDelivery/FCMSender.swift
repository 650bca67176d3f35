import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PushRules
import RegistryCore

/// Sends FCM v1 messages for one service account: a connection pool to FCM, another to the
/// account's `token_uri`, and one cached access token.
public final class FCMSender: Sendable {
    public let projectID: String
    private let accessToken: FCMAccessToken
    private let messages: HTTP2ConnectionPool
    private let oauth: HTTP2ConnectionPool
    private let loop: AttemptLoop

    public init(
        account: FCMServiceAccount, endpoint: PushEndpoint = .fcm, tls: NIOSSLContext,
        configuration: SenderConfiguration = SenderConfiguration(), budget: PushBudget? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        projectID = account.projectID
        messages = HTTP2ConnectionPool(
            endpoint: endpoint, tls: tls, group: group, maximumConnections: configuration.maximumConnections,
            connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval)
        oauth = HTTP2ConnectionPool(
            endpoint: account.tokenEndpoint, tls: tls, group: group, maximumConnections: 1,
            connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval)
        accessToken = FCMAccessToken(account: account, pool: oauth)
        loop = AttemptLoop(
            policy: configuration.retryPolicy, attemptTimeout: configuration.attemptTimeout,
            budget: budget ?? configuration.makeBudget())
    }

    /// Sends `message` (an FCM v1 `message` object without its target) to `token`, retrying
    /// transient failures until `deadline`. A message FCM would refuse (see `FCMMessageRules`, and
    /// 4,096 bytes) is rejected without sending. `lane` is the provider budget's lane the push
    /// waits in (see `PushBudget`).
    public func send(
        _ message: [String: JSONValue], to token: String, deadline: ContinuousClock.Instant,
        lane: PushBudget.Lane = .interactive
    ) async -> DeliveryResult {
        if let problem = FCMMessageRules.problems(in: .object(message)).first {
            return DeliveryResult(status: .rejected(reason: "\(problem.field) \(problem.message)"), attempts: 0)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let messageBytes = try? encoder.encode(JSONValue.object(message)),
            PayloadLimit.fits(messageBytes.count, .fcm),
            let body = try? encoder.encode([
                "message": JSONValue.object(message.merging(["token": .string(token)]) { $1 })
            ])
        else { return DeliveryResult(status: .rejected(reason: "PayloadTooLarge"), attempts: 0) }
        let path = "/v1/projects/\(projectID)/messages:send"
        return await loop.run(until: deadline, lane: lane) { timeout in
            let bearer: String
            do {
                bearer = try await accessToken.token(timeout: timeout)
            } catch {
                return (error as? OutcomeError)?.outcome ?? .providerAuthFailure(reason: "AssertionSigningFailed")
            }
            let request = PushHTTPRequest(
                path: path, headers: [("authorization", "Bearer \(bearer)"), ("content-type", "application/json")],
                body: Array(body))
            let response: PushHTTPResponse
            do throws(ConnectionFailure) {
                response = try await messages.send(request, timeout: timeout)
            } catch {
                return .transient(reason: error.reason, retryAfter: nil)
            }
            let receivedAt = Date()
            let outcome = FCMAnswer(
                status: response.status, retryAfter: response.header("retry-after"), body: response.body,
                receivedAt: receivedAt
            ).outcome(receivedAt: receivedAt)
            if case .credentialExpired = outcome { await accessToken.refused(bearer) }
            return outcome
        }
    }

    /// Connections opened (to FCM and the token endpoint) and access tokens obtained so far.
    public var statistics: SenderStatistics {
        get async {
            SenderStatistics(
                connectionsOpened: await messages.connectionsOpened + oauth.connectionsOpened,
                credentialsIssued: await accessToken.exchanges,
                openConnections: await messages.openConnections + oauth.openConnections,
                openStreams: await messages.openStreams + oauth.openStreams)
        }
    }

    public func shutdown() async {
        await messages.close()
        await oauth.close()
    }
}
