import Foundation
import MockPush
import PushRules
import PushTestSupport
import RegistryCore
import RegistryCrypto
import Testing

@testable import PushDelivery

/// The FCM sender and its OAuth exchange against the mock over real TLS and HTTP/2.
@Suite struct FCMSenderTests {
    static let message = FCMMessage([
        "data": .object(["type": .string("call.mobile_push_wakeup"), "call_id": .string("c1")]),
        "android": .object(["priority": .string("high"), "ttl": .string("30s")]),
    ])

    struct Setup {
        let fixture: MockPushFixture
        let sender: FCMSender
    }

    func withSender(accountKey: SigningKey? = nil, _ body: (Setup) async throws -> Void) async throws {
        let fixture = try await MockPushFixture.start()
        var json = try JSONParser.parse(try fixture.serviceAccountJSON())
        if let accountKey, case .object(var fields) = json {
            fields["private_key"] = .string(try accountKey.pkcs8PEM())
            json = .object(fields)
        }
        let sender = FCMSender(
            account: try FCMServiceAccount(json: json), endpoint: try PushEndpoint(fixture.baseURL),
            tls: try PushTLS.makeContext(additionalCAFile: fixture.certificates.caFile),
            configuration: APNsSenderTests.fast)
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

    static func deadline(_ duration: Duration = .seconds(10)) -> ContinuousClock.Instant { .now + duration }

    @Test func exchangesAnAssertionThenSendsTheMessageWithItsToken() async throws {
        try await withSender { setup in
            let result = await setup.sender.send(Self.message, to: "fcm-token-1", deadline: Self.deadline())
            guard case .sent(let name?) = result.status else {
                Issue.record("not sent: \(result)")
                return
            }
            #expect(name.hasPrefix("projects/example-project/messages/"))
            let requests = setup.fixture.server.recordedRequests
            #expect(requests.map(\.endpoint) == [.oauth, .fcm])
            #expect(requests[1].path == "/v1/projects/example-project/messages:send")
            #expect(requests[1].deviceToken == "fcm-token-1")
            let sent = try JSONParser.parse(requests[1].body)
            #expect(sent.objectValue?["message"]?.objectValue?["data"] == Self.message.fields["data"])
        }
    }

    /// However many pushes start at once, one token exchange serves them all.
    @Test func theAccessTokenIsFetchedOnceForConcurrentPushes() async throws {
        try await withSender { setup in
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        _ = await setup.sender.send(Self.message, to: "token-\(index)", deadline: Self.deadline())
                    }
                }
            }
            #expect(setup.fixture.server.statistics.accessTokensIssued == 1)
            #expect(await setup.sender.statistics.credentialsIssued == 1)
            #expect(setup.fixture.server.recordedRequests.filter { $0.endpoint == .fcm }.count == 50)
        }
    }

    @Test func unregisteredIsATokenVerdict() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .fcm, status: 404, reason: "UNREGISTERED"))
            let result = await setup.sender.send(Self.message, to: "gone", deadline: Self.deadline())
            guard case .tokenInvalid(let reason, let policy, _) = result.status else {
                Issue.record("not a token verdict: \(result)")
                return
            }
            #expect(reason == "UNREGISTERED")
            #expect(policy == .deleteIfNotSeenSince)
        }
    }

    @Test func anInvalidArgumentNamingTheTokenDisablesItAndOneAboutThePayloadDoesNot() async throws {
        try await withSender { setup in
            setup.fixture.server.script(
                MockReply(service: .fcm, status: 400, reason: "INVALID_ARGUMENT", field: "message.token"))
            setup.fixture.server.script(
                MockReply(service: .fcm, status: 400, reason: "INVALID_ARGUMENT", field: "message.android.ttl"))
            let token = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline())
            let payload = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline())
            guard case .tokenInvalid(_, let policy, _) = token.status else {
                Issue.record("not a token verdict: \(token)")
                return
            }
            #expect(policy == .disable)
            #expect(payload.status == .rejected(reason: "INVALID_ARGUMENT"))
        }
    }

    @Test func aRefusedAccessTokenIsReplacedOnceAndTheSendFinishes() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .fcm, status: 401))
            let result = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline())
            #expect(result.attempts == 2)
            guard case .sent = result.status else {
                Issue.record("not sent: \(result)")
                return
            }
            #expect(setup.fixture.server.statistics.accessTokensIssued == 2)
        }
    }

    @Test func anUnavailableThenSuccessIsRetried() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .fcm, status: 503, reason: "UNAVAILABLE", retryAfter: 0))
            let result = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline())
            #expect(result.attempts == 2)
            guard case .sent = result.status else {
                Issue.record("not sent: \(result)")
                return
            }
        }
    }

    /// A ring retried after `503` with `Retry-After: 1` carries what is left of its 30 s, not
    /// the 30 s it started with: it never rings later than the first attempt would have.
    @Test func aRetriedMessageCarriesWhatIsLeftOfItsTTL() async throws {
        try await withSender { setup in
            setup.fixture.server.script(MockReply(service: .fcm, status: 503, reason: "UNAVAILABLE", retryAfter: 1))
            let result = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline(.seconds(60)))
            #expect(result.attempts == 2)
            let ttls = try setup.fixture.server.recordedRequests.filter { $0.endpoint == .fcm }.map { request in
                let message = try JSONParser.parse(request.body).objectValue?["message"]?.objectValue
                return try #require(message?["android"]?.objectValue?["ttl"]?.stringValue.flatMap(FCMTTL.parse))
            }
            #expect(ttls.count == 2)
            #expect(ttls[0] <= .seconds(30) && ttls[0] > .seconds(29))
            #expect(ttls[1] <= .seconds(29) && ttls[1] > .zero)
        }
    }

    /// A key Google does not know for the account: the token exchange says invalid_grant, which
    /// is an auth failure, and no message is sent.
    @Test func anAccountGoogleRefusesIsAnAuthFailure() async throws {
        try await withSender(accountKey: try SigningKey.generate(.rs256)) { setup in
            let result = await setup.sender.send(Self.message, to: "t", deadline: Self.deadline())
            #expect(result == DeliveryResult(status: .authFailed(reason: "invalid_grant"), attempts: 1))
            #expect(setup.fixture.server.recordedRequests.map(\.endpoint) == [.oauth])
        }
    }

    @Test func aMessageFCMWouldRefuseIsRejectedWithoutSending() async throws {
        try await withSender { setup in
            var numeric = Self.message.fields
            numeric["data"] = .object(["ring": .number(30)])
            let result = await setup.sender.send(FCMMessage(numeric), to: "t", deadline: Self.deadline())
            #expect(result.attempts == 0)
            guard case .rejected(let reason) = result.status else {
                Issue.record("not rejected: \(result)")
                return
            }
            #expect(reason.hasPrefix("fcm.message.data.ring"))
            var large = Self.message.fields
            large["data"] = .object(["blob": .string(String(repeating: "x", count: 4096))])
            #expect(
                await setup.sender.send(FCMMessage(large), to: "t", deadline: Self.deadline())
                    == DeliveryResult(status: .rejected(reason: "PayloadTooLarge"), attempts: 0))
            #expect(setup.fixture.server.recordedRequests.isEmpty)
        }
    }

    @Test func aServiceAccountIsReadAsGoogleIssuesItAndRefusedNamingTheField() throws {
        let key = try SigningKey.generate(.rs256).pkcs8PEM()
        let good: JSONValue = .object([
            "type": .string("service_account"), "project_id": .string("p"), "private_key_id": .string("k1"),
            "private_key": .string(key), "client_email": .string("a@p.iam.gserviceaccount.com"),
            "token_uri": .string("https://oauth2.googleapis.com/token"),
        ])
        let account = try FCMServiceAccount(json: good)
        #expect(account.tokenEndpoint == (try PushEndpoint("https://oauth2.googleapis.com")))
        #expect(account.tokenPath == "/token")
        #expect(account.privateKeyID == "k1")
        guard case .object(var fields) = good else { return }
        fields["private_key"] = .string(try SigningKey.generate(.es256).pkcs8PEM())
        fields["token_uri"] = .string("http://oauth2.googleapis.com/token")
        fields["client_email"] = nil
        #expect(throws: ValidationErrors.self) { try FCMServiceAccount(json: .object(fields)) }
        do {
            _ = try FCMServiceAccount(json: .object(fields), field: "credentials.service_account")
        } catch {
            #expect(
                error.errors.map(\.field) == [
                    "credentials.service_account.client_email", "credentials.service_account.private_key",
                    "credentials.service_account.token_uri",
                ])
        }
    }
}
