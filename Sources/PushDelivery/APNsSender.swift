import Foundation
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL
import PushRules
import RegistryCore

/// Sends notifications for one APNs provider (one key, one app): one connection pool per
/// environment — separate even when both point at the same `endpoint` — and, with token
/// authentication, the key's provider token, shared by every request and every provider using
/// the same key. With certificate authentication the connections present the certificate (in
/// `tls`) and requests carry no `authorization`.
public final class APNsSender: Sendable {
    public let bundleID: String
    /// `apns-topic` for each push type, made once: a suffixed topic is a string of its own.
    private let topics: [APNsPushType: String]
    /// Nil with certificate authentication.
    private let providerToken: APNsProviderToken?
    private let production: HTTP2ConnectionPool
    private let sandbox: HTTP2ConnectionPool
    private let loop: AttemptLoop
    private let attemptTimeout: Duration

    public convenience init(
        credentials: APNsCredentials, bundleID: String, production: PushEndpoint = .apnsProduction,
        sandbox: PushEndpoint = .apnsSandbox, tls: NIOSSLContext, providerTokens: APNsProviderTokens = .shared,
        configuration: SenderConfiguration = SenderConfiguration(), budget: PushBudget? = nil,
        tasks: any BackgroundTasks = UnownedTasks(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.init(
            providerToken: providerTokens.token(for: credentials, tasks: tasks), bundleID: bundleID,
            production: production,
            sandbox: sandbox, tls: tls, configuration: configuration, budget: budget, group: group)
    }

    /// Certificate authentication: `tls` must present the provider's certificate
    /// (`PushTLS.makeContext(additionalCAFile:identity:)`).
    public convenience init(
        certificateTLS tls: NIOSSLContext, bundleID: String, production: PushEndpoint = .apnsProduction,
        sandbox: PushEndpoint = .apnsSandbox, configuration: SenderConfiguration = SenderConfiguration(),
        budget: PushBudget? = nil, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.init(
            providerToken: nil, bundleID: bundleID, production: production, sandbox: sandbox, tls: tls,
            configuration: configuration, budget: budget, group: group)
    }

    private init(
        providerToken: APNsProviderToken?, bundleID: String, production: PushEndpoint, sandbox: PushEndpoint,
        tls: NIOSSLContext, configuration: SenderConfiguration, budget: PushBudget?, group: any EventLoopGroup
    ) {
        self.bundleID = bundleID
        topics = Dictionary(uniqueKeysWithValues: APNsPushType.allCases.map { ($0, $0.topic(bundleID: bundleID)) })
        self.providerToken = providerToken
        func pool(_ endpoint: PushEndpoint) -> HTTP2ConnectionPool {
            HTTP2ConnectionPool(
                endpoint: endpoint, tls: tls, group: group, maximumConnections: configuration.maximumConnections,
                connectTimeout: configuration.connectTimeout, pingInterval: configuration.pingInterval,
                pingTimeout: configuration.pingTimeout)
        }
        self.production = pool(production)
        self.sandbox = pool(sandbox)
        attemptTimeout = configuration.attemptTimeout
        loop = AttemptLoop(
            policy: configuration.retryPolicy, attemptTimeout: configuration.attemptTimeout,
            budget: budget ?? configuration.makeBudget())
    }

    /// Sends `payload` (the JSON APNs delivers) to `token` and retries transient failures until
    /// `deadline` or the notification's `apns-expiration`, whichever comes first (so every
    /// attempt's `apns-expiration` is the window's own end, and none starts after it). A payload
    /// over the limit for its push type is rejected without sending. `lane` is the provider
    /// budget's lane the push waits in (see `PushBudget`).
    ///
    /// Every attempt carries the same `apnsID`, a resend after a lost connection too: APNs does
    /// not deduplicate on it, but it names the notification in Apple's delivery logs and in our
    /// results, and a resend is the same notification. Apps deduplicate on the event's id in the
    /// payload; `DeliveryResult.maybeDelivered` says when they may have to.
    public func send(
        _ payload: [UInt8], to token: String, environment: APNsEnvironment, options: APNsSendOptions,
        apnsID: UUID = .processUnique(), deadline: ContinuousClock.Instant, lane: PushBudget.Lane = .interactive
    ) async -> DeliveryResult {
        await send(
            rendering: { payload }, to: token, environment: environment, options: options, apnsID: apnsID,
            deadline: deadline, lane: lane)
    }

    /// `send(_:…)` with a payload rendered when each attempt starts: a payload that carries what
    /// is left of its window (Flexisip's `pn_ttl`) carries, on a resend too, what is left then.
    /// Its size is checked on a first rendering; later ones are no larger (time left only shrinks).
    public func send(
        rendering payload: @escaping @Sendable () -> [UInt8], to token: String, environment: APNsEnvironment,
        options: APNsSendOptions, apnsID: UUID = .processUnique(), deadline: ContinuousClock.Instant,
        lane: PushBudget.Lane = .interactive
    ) async -> DeliveryResult {
        // The token becomes part of the request path: anything but ASCII hex is what APNs calls
        // BadDeviceToken, so it gets that answer's verdict without a request that could go astray.
        // Checked on its bytes: walking it as `Character`s segments graphemes, dear per push.
        guard !token.isEmpty, ASCIISet.hexDigits.containsAll(token) else {
            return await loop.run(until: deadline, lane: lane) { _ in
                APNsAnswer(status: 400, reason: "BadDeviceToken").outcome(receivedAt: Date())
            }
        }
        guard PayloadLimit.fits(payload().count, options.pushType == .voip ? .voip : .apns) else {
            return DeliveryResult(status: .rejected(reason: "PayloadTooLarge"), attempts: 0)
        }
        let pool = environment == .production ? production : sandbox
        var deadline = deadline
        // The epoch means "now or never" to APNs, not a moment to stop retrying at.
        if let expiration = options.expiration, expiration.timeIntervalSince1970 > 0 {
            deadline = min(deadline, .now + .milliseconds(Int64(expiration.timeIntervalSinceNow * 1000)))
        }
        // NIO no longer checks the header values sent (`HTTP2Connection`): the one that comes
        // from a caller unchecked for them is refused here with APNs's own reason.
        if let collapseID = options.collapseID, collapseID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return DeliveryResult(status: .rejected(reason: "BadCollapseId"), attempts: 0)
        }
        let topic = topics[options.pushType] ?? options.pushType.topic(bundleID: bundleID)
        let path = "/3/device/" + token
        return await loop.run(until: deadline, lane: lane) { timeout async throws(ConnectionFailure) in
            var jwt: String?
            if let providerToken {
                do {
                    if let fresh = providerToken.freshToken {
                        jwt = fresh
                    } else {
                        jwt = try await providerToken.token()
                    }
                } catch {
                    return .providerAuthFailure(reason: "ProviderTokenSigningFailed")
                }
            }
            // Room for the six APNs headers at most, the content type and the authorization.
            var request = PushHTTPRequest(
                authority: pool.authority, path: path, pathIsUnique: true, body: payload(), fields: 8)
            options.headers(topic: topic, apnsID: apnsID) { name, value in
                // Unique per notification, so never worth a place in either end's HPACK table.
                request.add(name, value, indexing: name == "apns-id" ? .nonIndexable : .indexable)
            }
            request.add("content-type", "application/json")
            if let jwt, let providerToken { request.add("authorization", providerToken.authorization(for: jwt)) }
            let response: PushHTTPResponse
            do throws(ConnectionFailure) {
                response = try await pool.send(request, timeout: timeout, pushDeadline: deadline)
            } catch .clientCertificateRefused where providerToken == nil {
                // Resending cannot help: the certificate is the provider's, and APNs refused it.
                return .providerAuthFailure(reason: ConnectionFailure.clientCertificateRefused.reason)
            }
            let receivedAt = Date()
            let outcome = APNsAnswer(
                status: response.status, apnsID: response.header("apns-id"), retryAfter: response.header("retry-after"),
                body: response.body, receivedAt: receivedAt
            ).outcome(receivedAt: receivedAt)
            guard let providerToken, let jwt else { return outcome }
            switch outcome {
            case .credentialExpired: await providerToken.expired(jwt)
            case .transient(reason: "TooManyProviderTokenUpdates", _): await providerToken.refused(jwt)
            default: break
            }
            return outcome
        }
    }

    /// Connections opened and provider tokens signed so far.
    public var statistics: SenderStatistics {
        get async {
            SenderStatistics(
                connectionsOpened: await production.connectionsOpened + sandbox.connectionsOpened,
                credentialsIssued: await providerToken?.signings ?? 0,
                credentialsAdopted: await providerToken?.adoptions ?? 0,
                openConnections: await production.openConnections + sandbox.openConnections,
                openStreams: await production.openStreams + sandbox.openStreams)
        }
    }

    /// Takes no more pushes and closes the connections once the pushes in flight have finished,
    /// waiting at most `grace` (by default one attempt's timeout, which bounds them anyway).
    public func shutdown(grace: Duration? = nil) async {
        async let first: Void = production.close(grace: grace ?? attemptTimeout)
        async let second: Void = sandbox.close(grace: grace ?? attemptTimeout)
        _ = await (first, second)
    }
}
