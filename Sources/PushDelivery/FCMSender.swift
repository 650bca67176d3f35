import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL
import PushRules
import RegistryCore

/// Sends FCM v1 messages for one service account: a connection pool to FCM, another to the
/// account's `token_uri`, and one cached access token.
public final class FCMSender: Sendable {
    public let projectID: String
    private let messagesPath: String
    private let accessToken: FCMAccessToken
    private let messages: HTTP2ConnectionPool
    private let oauth: HTTP2ConnectionPool
    private let loop: AttemptLoop
    private let attemptTimeout: Duration
    /// The messages sent last, checked and with their bodies cut around the token, most recent
    /// first: a job's one message, beside a few others sent meanwhile.
    private let prepared = NIOLockedValueBox<[FCMPreparedMessage]>([])
    private static let preparedKept = 4

    public init(
        account: FCMServiceAccount, endpoint: PushEndpoint = .fcm, tls: NIOSSLContext,
        configuration: SenderConfiguration = SenderConfiguration(), budget: PushBudget? = nil,
        tasks: any BackgroundTasks = UnownedTasks(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        projectID = account.projectID
        messagesPath = "/v1/projects/\(account.projectID)/messages:send"
        messages = HTTP2ConnectionPool(
            endpoint: endpoint, tls: tls, group: group, maximumConnections: configuration.maximumConnections,
            connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval,
            pingTimeout: configuration.pingTimeout)
        oauth = HTTP2ConnectionPool(
            endpoint: account.tokenEndpoint, tls: tls, group: group, maximumConnections: 1,
            connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval,
            pingTimeout: configuration.pingTimeout)
        accessToken = FCMAccessToken(account: account, pool: oauth, tasks: tasks)
        attemptTimeout = configuration.attemptTimeout
        loop = AttemptLoop(
            policy: configuration.retryPolicy, attemptTimeout: configuration.attemptTimeout,
            budget: budget ?? configuration.makeBudget())
    }

    /// Sends `message` (an FCM v1 `message` object without its target) to `token`, retrying
    /// transient failures until `deadline`. A message FCM would refuse (see `FCMMessageRules`, and
    /// 4,096 bytes) is rejected without sending. `lane` is the provider budget's lane the push
    /// waits in (see `PushBudget`).
    ///
    /// An `android.ttl` is a window that starts now: no attempt starts after it ends, and each
    /// carries what is left of it when it starts, so a ring retried after a 503 does not ring
    /// later than the first attempt would have. An attempt's access token exchange and its send
    /// share the attempt's time.
    public func send(
        _ message: FCMMessage, to token: String, deadline: ContinuousClock.Instant,
        lane: PushBudget.Lane = .interactive
    ) async -> DeliveryResult {
        let prepared = prepare(message)
        if let refusal = prepared.refusal {
            return DeliveryResult(status: .rejected(reason: refusal), attempts: 0)
        }
        var deadline = deadline
        // `0s` is FCM's "now or never", not an empty window.
        let expiry = message.ttl.flatMap { $0 > .zero ? ContinuousClock.now + $0 : nil }
        if let expiry { deadline = min(deadline, expiry) }
        return await loop.run(until: deadline, lane: lane) { timeout async throws(ConnectionFailure) in
            let attemptEnds = ContinuousClock.now + timeout
            let body =
                expiry.map { message.withTTL(ContinuousClock.now.duration(to: $0)).body(token: token) }
                ?? prepared.body(token: token)
            guard !body.isEmpty else { return .rejected(reason: "PayloadTooLarge") }
            let bearer: String
            do throws(PushOutcome) {
                // The fresh token without entering its actor, as nearly always.
                if let fresh = accessToken.freshToken {
                    bearer = fresh
                } else {
                    bearer = try await accessToken.token(timeout: timeout)
                }
            } catch {
                return error
            }
            let left = ContinuousClock.now.duration(to: attemptEnds)
            guard left > .zero else { throw .timedOut }
            var request = PushHTTPRequest(authority: messages.authority, path: messagesPath, body: body, fields: 2)
            request.add("authorization", "Bearer \(bearer)")
            request.add("content-type", "application/json")
            let response = try await messages.send(request, timeout: left, pushDeadline: deadline)
            let receivedAt = Date()
            let outcome = FCMAnswer(
                status: response.status, retryAfter: response.header("retry-after"), body: response.body,
                receivedAt: receivedAt
            ).outcome(receivedAt: receivedAt)
            if case .credentialExpired = outcome { await accessToken.refused(bearer) }
            return outcome
        }
    }

    /// `message` checked and cut around its token: kept from an earlier push of it when there was one.
    private func prepare(_ message: FCMMessage) -> FCMPreparedMessage {
        let known = prepared.withLockedValue { prepared -> FCMPreparedMessage? in
            guard let index = prepared.firstIndex(where: { $0.message == message }) else { return nil }
            if index > 0 { prepared.swapAt(0, index) }
            return prepared[0]
        }
        if let known { return known }
        let made = FCMPreparedMessage(message)
        prepared.withLockedValue { prepared in
            prepared.insert(made, at: 0)
            if prepared.count > Self.preparedKept { prepared.removeLast() }
        }
        return made
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

    /// Takes no more pushes and closes the connections once the pushes in flight have finished,
    /// waiting at most `grace` (by default one attempt's timeout, which bounds them anyway).
    public func shutdown(grace: Duration? = nil) async {
        async let first: Void = messages.close(grace: grace ?? attemptTimeout)
        async let second: Void = oauth.close(grace: grace ?? attemptTimeout)
        _ = await (first, second)
    }
}
