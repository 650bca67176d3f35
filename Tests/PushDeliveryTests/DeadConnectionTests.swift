import Foundation
import MockPush
import PushRules
import PushTestSupport
import RegistryCore
import Testing

@testable import PushDelivery

/// The senders against the mock through a `FaultProxy`: connections that die silently, answers
/// that never come, and what each does to a push's attempts.
@Suite struct DeadConnectionTests {
    static let token = APNsSenderTests.token
    static let payload = APNsSenderTests.payload
    static let configuration = SenderConfiguration(
        maximumConnections: 2, connectTimeout: .seconds(5), attemptTimeout: .seconds(3),
        retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 4),
        pingTimeout: .seconds(1))

    struct Setup {
        let fixture: MockPushFixture
        let proxy: FaultProxy
        let sender: APNsSender
    }

    /// `configuration` defaults to `DeadConnectionTests.configuration`; the bench passes the
    /// service's own.
    static func withSender(
        configuration: SenderConfiguration = configuration, _ body: (Setup) async throws -> Void
    ) async throws {
        let fixture = try await MockPushFixture.start()
        let proxy = try await FaultProxy.start(forwardingTo: "127.0.0.1", port: fixture.server.port)
        let endpoint = try PushEndpoint("https://localhost:\(proxy.port)")
        let sender = APNsSender(
            credentials: APNsCredentials(teamID: fixture.teamID, keyID: fixture.keyID, key: fixture.apnsKey),
            bundleID: "com.example.app", production: endpoint, sandbox: endpoint,
            tls: try PushTLS.makeContext(additionalCAFile: fixture.certificates.caFile),
            configuration: configuration)
        defer { fixture.certificates.remove() }
        do {
            try await body(Setup(fixture: fixture, proxy: proxy, sender: sender))
        } catch {
            await sender.shutdown()
            try await proxy.shutdown()
            try await fixture.server.shutdown()
            throw error
        }
        await sender.shutdown()
        try await proxy.shutdown()
        try await fixture.server.shutdown()
    }

    func ring(_ setup: Setup, within window: Duration = .seconds(10)) async throws -> DeliveryResult {
        let options = try APNsSenderTests.voip()
        return await setup.sender.send(
            Self.payload, to: Self.token, environment: .production, options: options,
            deadline: .now + window)
    }

    /// The proxy stops forwarding on the open connection without closing it. The rings sent
    /// next find it silent, PING it, get no answer within a second, and go out again on a new
    /// connection: all delivered within one attempt timeout plus a second, none lost.
    @Test func ringsAfterABlackholeGoOutOnANewConnectionInTime() async throws {
        try await Self.withSender { setup in
            for _ in 0..<3 {
                let result = try await ring(setup)
                #expect(result.isSent)
            }
            setup.proxy.blackholeOpenConnections()
            let window = Self.configuration.attemptTimeout + .seconds(1)
            let results = try await withThrowingTaskGroup(of: DeliveryResult.self) { group in
                for _ in 0..<20 { group.addTask { try await ring(setup, within: window) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter(\.isSent).count == 20, "\(results)")
            let connections = setup.fixture.server.recordedRequests.map(\.connection)
            #expect(connections.count == 23)
            #expect(Set(connections.dropFirst(3)) == [2])
        }
    }

    /// The service reads a ring and the connection dies before it answers: it may have rung,
    /// so the ring goes once more, on another connection, and the result says both.
    @Test func aRingWhoseAnswerIsLostGoesOnceMoreOnAnotherConnection() async throws {
        try await Self.withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, connection: .drop))
            let result = try await ring(setup)
            #expect(result.status.isSent)
            #expect(result.attempts == 2)
            #expect(result.maybeDelivered)
            #expect(setup.fixture.server.recordedRequests.map(\.connection) == [1, 2])
        }
    }

    /// However many connections die under it, a ring reaches the service at most twice.
    @Test func aRingReachesTheServiceAtMostTwice() async throws {
        try await Self.withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, connection: .drop, times: 5))
            let result = try await ring(setup)
            #expect(
                result == DeliveryResult(status: .failed(reason: "ConnectionLost"), attempts: 2, maybeDelivered: true))
            #expect(setup.fixture.server.recordedRequests.map(\.connection) == [1, 2])
        }
    }

    /// No answer on a connection that still answers PINGs: the service has the ring and may be
    /// ringing, so it is not sent again.
    @Test func aRingUnansweredOnALiveConnectionIsNotResent() async throws {
        try await Self.withSender { setup in
            setup.fixture.server.script(MockReply(service: .apns, connection: .silence))
            let result = try await ring(setup)
            #expect(result == DeliveryResult(status: .failed(reason: "Timeout"), attempts: 1, maybeDelivered: true))
            #expect(setup.fixture.server.recordedRequests.count == 1)
        }
    }

    /// A reset connection is noticed and the next ring goes out on a new one; a delay only slows.
    @Test func aResetOrADelayedConnectionStillDelivers() async throws {
        try await Self.withSender { setup in
            let first = try await ring(setup)
            setup.proxy.resetOpenConnections()
            let afterReset = try await ring(setup)
            setup.proxy.setDelay(.milliseconds(100))
            let delayed = try await ring(setup)
            #expect([first, afterReset, delayed].filter(\.isSent).count == 3, "\([first, afterReset, delayed])")
            #expect(setup.proxy.connectionsAccepted == 2)
        }
    }
}

extension DeliveryResult.Status {
    var isSent: Bool {
        if case .sent = self { return true }
        return false
    }
}

extension DeliveryResult {
    var isSent: Bool { status.isSent }
}
