import Foundation
import MockPush
import NIOCore
import NIOPosix
import PushRules
import PushTestSupport
import RegistryCore
import RegistryCrypto
import TestSupport
import Testing

@testable import PushDelivery

/// The APNs sender against the mock over real TLS (trusted through the test CA, as
/// `PUSH_CA_FILE` does) and HTTP/2.
@Suite struct APNsSenderTests {
    static let token = String(repeating: "ab", count: 32)
    static let payload = Array(#"{"aps":{},"call_id":"c1"}"#.utf8)
    static let fast = SenderConfiguration(
        maximumConnections: 2, connectTimeout: .seconds(5), attemptTimeout: .seconds(5),
        retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 4),
        pingTimeout: .seconds(5))  // See `TestServer.Options.sender`; `DeadConnectionTests` tests the 1 s.

    struct Setup {
        let fixture: MockPushFixture
        let sender: APNsSender
    }

    func withSender(
        maximumConcurrentStreams: Int = 1000, configuration: SenderConfiguration = fast, key: SigningKey? = nil,
        trustTestCA: Bool = true, _ body: (Setup) async throws -> Void
    ) async throws {
        let fixture = try await MockPushFixture.start(maximumConcurrentStreams: maximumConcurrentStreams)
        let endpoint = try PushEndpoint(fixture.baseURL)
        let sender = APNsSender(
            credentials: APNsCredentials(teamID: fixture.teamID, keyID: fixture.keyID, key: key ?? fixture.apnsKey),
            bundleID: "com.example.app", production: endpoint, sandbox: endpoint,
            tls: try PushTLS.makeContext(additionalCAFile: trustTestCA ? fixture.certificates.caFile : nil),
            configuration: configuration)
        do {
            try await body(Setup(fixture: fixture, sender: sender))
        } catch {
            await sender.shutdown()
            try await fixture.stop()
            throw error
        }
        await sender.shutdown()
        try await fixture.stop()
    }

    static func voip(expiresIn seconds: TimeInterval = 30) throws -> APNsSendOptions {
        try APNsSendOptions(
            pushType: .voip, priority: 10, expiration: Date().addingTimeInterval(seconds), collapseID: "call-1")
    }

    static func deadline(_ duration: Duration = .seconds(10)) -> ContinuousClock.Instant { .now + duration }

    @Test func sendsWithEveryHeaderAndAnswersTheApnsID() async throws {
        try await withSender { setup in
            let apnsID = UUID()
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(), apnsID: apnsID,
                deadline: Self.deadline())
            #expect(result == DeliveryResult(status: .sent(serviceID: apnsID.uuidString.lowercased()), attempts: 1))
            let recorded = try #require(setup.fixture.server.recordedRequests.first)
            #expect(recorded.path == "/3/device/\(Self.token)")
            #expect(recorded.headers["apns-topic"] == "com.example.app.voip")
            #expect(recorded.headers["apns-push-type"] == "voip")
            #expect(recorded.headers["apns-priority"] == "10")
            #expect(recorded.headers["apns-collapse-id"] == "call-1")
            #expect(recorded.headers["apns-expiration"].flatMap(Int.init) != nil)
            #expect(recorded.body == String(decoding: Self.payload, as: UTF8.self))
            #expect(recorded.credential?.hasPrefix("kid=XYZ987WVU6 iss=ABCDE12345 iat=") == true)
        }
    }

    /// One provider token and at most `maximumConnections` connections for a thousand pushes.
    /// Attempts get 60 s: on a loaded machine a debug build may take seconds to answer a
    /// thousand streams, and a timed-out attempt would be retried (and counted twice by the mock).
    @Test func aThousandPushesShareConnectionsAndOneProviderToken() async throws {
        var configuration = Self.fast
        configuration.attemptTimeout = .seconds(60)
        try await withSender(configuration: configuration) { setup in
            let options = try Self.voip()
            let results = await withTaskGroup(of: DeliveryResult.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        await setup.sender.send(
                            Self.payload, to: Self.token, environment: .production, options: options,
                            deadline: Self.deadline(.seconds(120)))
                    }
                }
                return await group.reduce(into: [DeliveryResult]()) { $0.append($1) }
            }
            #expect(results.allSatisfy { if case .sent = $0.status { true } else { false } })
            #expect(setup.fixture.server.recordedRequests.count == 1000)
            #expect(setup.fixture.server.statistics.connections <= 2)
            #expect(setup.fixture.server.statistics.providerTokensAccepted == 1)
            #expect(await setup.sender.statistics.credentialsIssued == 1)
        }
    }

    /// With the server allowing 2 streams per connection, concurrent pushes open more
    /// connections, but never more than the bound.
    @Test func moreConnectionsOnlyWhenStreamsRunOutAndNeverPastTheBound() async throws {
        try await withSender(maximumConcurrentStreams: 2) { setup in
            setup.fixture.server.script(MockReply(service: .apns, delayMilliseconds: 300, times: 12))
            let options = try Self.voip()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        _ = await setup.sender.send(
                            Self.payload, to: Self.token, environment: .production, options: options,
                            deadline: Self.deadline())
                    }
                }
            }
            #expect(setup.fixture.server.recordedRequests.count == 12)
            #expect(setup.fixture.server.statistics.connections == 2)
        }
    }

    /// With a PING every 100 ms of silence, a connection idle for a second is still the one the
    /// next push uses: the mock answers the PINGs, so nothing closes it.
    @Test func anIdleConnectionAnsweringPingsIsKept() async throws {
        var configuration = Self.fast
        configuration.pingInterval = .milliseconds(100)
        try await withSender(configuration: configuration) { setup in
            for _ in 0..<2 {
                let result = await setup.sender.send(
                    Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                    deadline: Self.deadline())
                #expect(result.attempts == 1)
                try await Task.sleep(for: .seconds(1))
            }
            #expect(setup.fixture.server.statistics.connections == 1)
        }
    }

    @Test func nothingIsSentOrConnectedAfterShutdown() async throws {
        try await withSender { setup in
            await setup.sender.shutdown()
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline(.seconds(1)))
            #expect(
                result.status == .failed(reason: "ConnectionClosed")
                    || result.status == .expired(reason: "ConnectionClosed"))
            #expect(setup.fixture.server.statistics.connections == 0)
        }
    }

    /// A sender replaced by a key rotation is shut down with pushes in flight: they finish on
    /// their connections, and only then do the connections close.
    @Test func shutdownLetsThePushesInFlightFinish() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, delayMilliseconds: 500))
            let options = try Self.voip()
            let inFlight = Task {
                await setup.sender.send(
                    Self.payload, to: Self.token, environment: .production, options: options,
                    deadline: Self.deadline())
            }
            let limit = ContinuousClock.now + .seconds(10)
            while setup.fixture.server.recordedRequests.isEmpty, ContinuousClock.now < limit { await Task.yield() }
            await setup.sender.shutdown()
            #expect(await inFlight.value.isSent)
            let late = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: options, deadline: Self.deadline())
            #expect(!late.isSent)
        }
    }

    @Test func sandboxAndProductionUseTheirOwnConnectionsEvenToOneEndpoint() async throws {
        try await withSender { setup in
            for environment in [APNsEnvironment.production, .sandbox, .production, .sandbox] {
                _ = await setup.sender.send(
                    Self.payload, to: Self.token, environment: environment, options: try Self.voip(),
                    deadline: Self.deadline())
            }
            #expect(setup.fixture.server.statistics.connections == 2)
        }
    }

    @Test func a503ThenSuccessIsSentOnTheSecondAttemptWithTheSameApnsID() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, status: 503, reason: "ServiceUnavailable"))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline())
            #expect(result.attempts == 2)
            guard case .sent = result.status else {
                Issue.record("not sent: \(result)")
                return
            }
            let ids = setup.fixture.server.recordedRequests.map { $0.headers["apns-id"] }
            #expect(ids.count == 2 && ids[0] == ids[1] && ids[0] != nil)
        }
    }

    /// A Retry-After beyond the deadline means no retry at all: expired, and nothing sent late.
    @Test func aRetryAfterPastTheDeadlineExpiresWithoutALateSend() async throws {
        try await withSender { setup in
            setup.fixture.server.script(
                MockReply(service: .apns, status: 429, reason: "TooManyRequests", retryAfter: 5))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline(.seconds(2)))
            #expect(result == DeliveryResult(status: .expired(reason: "TooManyRequests"), attempts: 1))
            try await Task.sleep(for: .seconds(2.5))
            #expect(setup.fixture.server.recordedRequests.count == 1)
        }
    }

    /// A notification APNs would discard by now is not retried either, whatever the deadline.
    @Test func retriesStopAtTheApnsExpirationToo() async throws {
        try await withSender { setup in
            setup.fixture.server.script(
                MockReply(service: .apns, status: 503, reason: "ServiceUnavailable", retryAfter: 2))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(expiresIn: 1),
                deadline: Self.deadline(.seconds(30)))
            #expect(result == DeliveryResult(status: .expired(reason: "ServiceUnavailable"), attempts: 1))
            #expect(setup.fixture.server.recordedRequests.count == 1)
        }
    }

    /// A hung endpoint never holds a push past its deadline.
    @Test func aHungEndpointExpiresAtTheDeadline() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, delayMilliseconds: 20_000, times: 10))
            let started = ContinuousClock.now
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline(.seconds(1)))
            #expect(result.status == .expired(reason: "Timeout"))
            #expect(ContinuousClock.now - started < .seconds(5))  // Bounded by the deadline, not the 20 s delay.
        }
    }

    /// Each provider has its own connections: while one provider's pushes hang and fill every
    /// stream its connections are allowed (10 each, 2 connections), another's are answered as
    /// usual. Had they shared connections, the healthy pushes would queue behind the hung ones
    /// for their whole 4 seconds; the slowest healthy push is measured against that.
    @Test func aHungProviderDoesNotSlowAnother() async throws {
        try await withSender(maximumConcurrentStreams: 10) { setup in
            let hungToken = String(repeating: "cd", count: 32)
            setup.fixture.server.script(
                MockReply(service: .apns, token: hungToken, delayMilliseconds: 20_000, times: 200))
            let healthy = APNsSender(
                credentials: APNsCredentials(
                    teamID: setup.fixture.teamID, keyID: setup.fixture.keyID, key: setup.fixture.apnsKey),
                bundleID: "com.example.other", production: try PushEndpoint(setup.fixture.baseURL),
                tls: try PushTLS.makeContext(additionalCAFile: setup.fixture.certificates.caFile),
                configuration: Self.fast)
            let options = try Self.voip()
            let slowest = await withTaskGroup(of: Duration?.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        _ = await setup.sender.send(
                            Self.payload, to: hungToken, environment: .production, options: options,
                            deadline: Self.deadline(.seconds(4)))
                        return nil
                    }
                }
                group.addTask {
                    // The hung pushes fill every stream first: 2 connections of 10.
                    try? await TestSupport.waitUntil("the hung pushes are in flight") {
                        setup.fixture.server.recordedRequests.count >= 20
                    }
                    var slowest = Duration.zero
                    for _ in 0..<20 {
                        let started = ContinuousClock.now
                        let result = await healthy.send(
                            Self.payload, to: Self.token, environment: .production, options: options,
                            deadline: Self.deadline())
                        guard case .sent = result.status else { return .seconds(999) }
                        slowest = max(slowest, ContinuousClock.now - started)
                    }
                    return slowest
                }
                return await group.compactMap { $0 }.reduce(Duration.zero, max)
            }
            await healthy.shutdown()
            #expect(slowest < .seconds(2))
        }
    }

    /// An APNs key belongs to a team: two apps' providers using it share one provider token, so
    /// neither trips the other's renewal limit.
    @Test func providersSharingAKeyShareItsProviderToken() async throws {
        try await withSender { setup in
            let otherApp = APNsSender(
                credentials: APNsCredentials(
                    teamID: setup.fixture.teamID, keyID: setup.fixture.keyID, key: setup.fixture.apnsKey),
                bundleID: "com.example.other", production: try PushEndpoint(setup.fixture.baseURL),
                tls: try PushTLS.makeContext(additionalCAFile: setup.fixture.certificates.caFile),
                configuration: Self.fast)
            for (index, sender) in [setup.sender, otherApp, setup.sender, otherApp].enumerated() {
                // Past the first second, a token of its own would carry another iat.
                if index == 1 { try await Task.sleep(for: .milliseconds(1100)) }
                let result = await sender.send(
                    Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                    deadline: Self.deadline())
                #expect(result.attempts == 1)
            }
            await otherApp.shutdown()
            #expect(setup.fixture.server.statistics.providerTokensAccepted == 1)
        }
    }

    /// A server that accepts TCP but never answers TLS holds the connect, not the push: the push
    /// ends at its deadline though the connect timeout is far longer.
    @Test func aServerThatNeverCompletesTLSDoesNotHoldAPushPastItsDeadline() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        var configuration = Self.fast
        configuration.connectTimeout = .seconds(60)
        let sender = APNsSender(
            credentials: APNsCredentials(
                teamID: "ABCDE12345", keyID: "XYZ987WVU6", key: try SigningKey.generate(.es256)),
            bundleID: "com.example.app", production: try PushEndpoint("https://localhost:\(port)"),
            tls: try PushTLS.makeContext(additionalCAFile: nil), configuration: configuration)
        let started = ContinuousClock.now
        let result = await sender.send(
            Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
            deadline: Self.deadline(.seconds(1)))
        #expect(result.status == .expired(reason: "Timeout"))
        #expect(ContinuousClock.now - started < .seconds(5))
        await sender.shutdown()
        try await silent.close()
    }

    @Test func anUnregisteredTokenCarriesApplesTimestamp() async throws {
        try await withSender { setup in
            setup.fixture.server.script(
                MockReply(service: .apns, status: 410, reason: "Unregistered", timestamp: 1_799_999_000_500))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline())
            guard case .tokenInvalid(let reason, let policy, let observedAt) = result.status else {
                Issue.record("not a token verdict: \(result)")
                return
            }
            #expect(reason == "Unregistered")
            #expect(policy == .deleteIfNotSeenSince)
            #expect(observedAt == Date(timeIntervalSince1970: 1_799_999_000.5))
        }
    }

    @Test func aKeyAppleDoesNotKnowIsAnAuthFailureWithoutRetrying() async throws {
        try await withSender(key: try SigningKey.generate(.es256)) { setup in
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline())
            #expect(result == DeliveryResult(status: .authFailed(reason: "InvalidProviderToken"), attempts: 1))
        }
    }

    @Test func anExpiredProviderTokenIsRenewedOnceAndTheSendFinishes() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, status: 403, reason: "ExpiredProviderToken"))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline())
            #expect(result.attempts == 2)
            #expect(await setup.sender.statistics.credentialsIssued == 2)
            let credentials = setup.fixture.server.recordedRequests.compactMap(\.credential)
            #expect(credentials.count == 2)
        }
    }

    /// The mock knows which tokens are PushKit tokens and answers a push of the wrong kind as
    /// Apple does, so a sender that mixes them up is seen in tests.
    @Test func aPushOfTheWrongKindIsDeviceTokenNotForTopic() async throws {
        try await withSender { setup in
            let voipToken = String(repeating: "0a", count: 32)
            let alertToken = String(repeating: "0b", count: 32)
            setup.fixture.server.registerToken(voipToken, type: .voip)
            setup.fixture.server.registerToken(alertToken, type: .apns)
            let alert = try APNsSendOptions(pushType: .alert)
            for (token, options) in [(voipToken, alert), (alertToken, try Self.voip())] {
                let result = await setup.sender.send(
                    Self.payload, to: token, environment: .production, options: options, deadline: Self.deadline())
                guard case .tokenInvalid(let reason, _, _) = result.status else {
                    Issue.record("not a token verdict: \(result)")
                    continue
                }
                #expect(reason == "DeviceTokenNotForTopic")
            }
            for (token, options) in [(voipToken, try Self.voip()), (alertToken, alert), (Self.token, alert)] {
                let result = await setup.sender.send(
                    Self.payload, to: token, environment: .production, options: options, deadline: Self.deadline())
                #expect(result.status.isSent)
            }
        }
    }

    @Test(arguments: [MockReply.ConnectionAction.goaway, .drop])
    func aGoawayOrDroppedConnectionFinishesOnANewConnection(action: MockReply.ConnectionAction) async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, connection: action))
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline())
            #expect(result.attempts == 2)
            guard case .sent = result.status else {
                Issue.record("not sent: \(result)")
                return
            }
            #expect(setup.fixture.server.statistics.connections == 2)
            #expect(Set(setup.fixture.server.recordedRequests.map(\.connection)) == [1, 2])
            // A GOAWAY says the request was not processed; a dropped connection cannot say.
            #expect(result.maybeDelivered == (action == .drop))
        }
    }

    /// Without the test CA among the trusted roots, the mock's certificate is refused: nothing
    /// is ever sent over an unverified connection.
    @Test func anUntrustedCertificateIsNeverSentTo() async throws {
        try await withSender(trustTestCA: false) { setup in
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: try Self.voip(),
                deadline: Self.deadline(.seconds(2)))
            #expect(
                [DeliveryResult.Status.failed(reason: "ConnectionFailed"), .expired(reason: "ConnectionFailed")]
                    .contains(result.status))
            #expect(setup.fixture.server.recordedRequests.isEmpty)
        }
    }

    /// The last: fullwidth digits, which `Character.isHexDigit` counts as hex.
    @Test(arguments: ["", "abc/../../v1/x", "zz" + String(repeating: "ab", count: 31), "ab\u{FF10}\u{FF21}"])
    func aTokenThatIsNotHexIsABadDeviceTokenWithoutSending(token: String) async throws {
        try await withSender { setup in
            let result = await setup.sender.send(
                Self.payload, to: token, environment: .production, options: try Self.voip(), deadline: Self.deadline())
            guard case .tokenInvalid(let reason, let policy, _) = result.status else {
                Issue.record("not a token verdict: \(result)")
                return
            }
            #expect(reason == "BadDeviceToken")
            #expect(policy == .disable)
            #expect(setup.fixture.server.recordedRequests.isEmpty)
        }
    }

    @Test func aPayloadOverTheLimitIsRejectedWithoutSending() async throws {
        try await withSender { setup in
            let large = Array(repeating: UInt8(ascii: "x"), count: 5121)
            let result = await setup.sender.send(
                large, to: Self.token, environment: .production, options: try Self.voip(), deadline: Self.deadline())
            #expect(result == DeliveryResult(status: .rejected(reason: "PayloadTooLarge"), attempts: 0))
            #expect(setup.fixture.server.recordedRequests.isEmpty)
        }
    }

    /// NIO does not check the header values it sends (`HTTP2Connection`): one a header block
    /// cannot carry is refused before a request is made.
    @Test func aCollapseIDWithAControlCharacterIsRejectedWithoutSending() async throws {
        try await withSender { setup in
            let options = try APNsSendOptions(pushType: .alert, collapseID: "call-1\r\nx-injected: 1")
            let result = await setup.sender.send(
                Self.payload, to: Self.token, environment: .production, options: options, deadline: Self.deadline())
            #expect(result == DeliveryResult(status: .rejected(reason: "BadCollapseId"), attempts: 0))
            #expect(setup.fixture.server.recordedRequests.isEmpty)
        }
    }
}

@Suite struct ProcessUniqueUUIDTests {
    /// An `apns-id` must be a canonical UUID: version 4, RFC 4122 variant, and no two alike.
    @Test func pushIDsAreDistinctVersionFourUUIDs() {
        let ids = (0..<1_000).map { _ in UUID.processUnique() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
            #expect(UUID(uuidString: id.uuidString) == id)
        }
    }
}
