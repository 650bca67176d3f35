import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// The mock's APNs side, driven by curl over real TLS and HTTP/2.
@Suite struct MockAPNsTests {
    static let token = String(repeating: "ab", count: 32)

    struct Claims: Encodable {
        let iss: String
        let iat: Int
    }

    static func providerToken(
        _ fixture: MockPushFixture, keyID: String? = nil, team: String? = nil, issuedAt: Date = Date(),
        key: SigningKey? = nil
    ) throws -> String {
        try JSONWebToken.sign(
            claims: Claims(iss: team ?? fixture.teamID, iat: Int(issuedAt.timeIntervalSince1970)),
            keyID: keyID ?? fixture.keyID, with: key ?? fixture.apnsKey)
    }

    static func voipHeaders(_ jwt: String) -> [String: String] {
        [
            "authorization": "bearer \(jwt)", "apns-topic": "com.example.app.voip", "apns-push-type": "voip",
            "apns-priority": "10", "apns-id": "123e4567-e89b-12d3-a456-4266554400a0",
        ]
    }

    func withMock(_ body: (MockPushFixture, Curl) async throws -> Void) async throws {
        let fixture = try await MockPushFixture.start()
        do {
            try await body(fixture, Curl(fixture: fixture))
        } catch {
            try await fixture.stop()
            throw error
        }
        try await fixture.stop()
    }

    @Test func acceptsAValidPushOverHTTP2AndRecordsIt() async throws {
        try await withMock { fixture, curl in
            let jwt = try Self.providerToken(fixture)
            let response = try curl.send(
                "/3/device/\(Self.token)", headers: Self.voipHeaders(jwt), body: #"{"aps":{},"call_id":"c1"}"#)
            #expect(response.httpVersion == "HTTP/2")
            #expect(response.status == 200)
            #expect(response.headers["apns-id"] == "123e4567-e89b-12d3-a456-4266554400a0")
            let recorded = try #require(fixture.server.recordedRequests.first)
            #expect(recorded.endpoint == .apns)
            #expect(recorded.deviceToken == Self.token)
            #expect(recorded.headers["apns-topic"] == "com.example.app.voip")
            #expect(recorded.headers["authorization"] == nil)
            #expect(recorded.credential?.hasPrefix("kid=\(fixture.keyID) iss=\(fixture.teamID) iat=") == true)
            #expect(recorded.body == #"{"aps":{},"call_id":"c1"}"#)
            #expect(fixture.server.statistics.providerTokensAccepted == 1)
        }
    }

    @Test func verifiesTheProviderTokenAsAppleDoes() async throws {
        try await withMock { fixture, curl in
            let path = "/3/device/\(Self.token)"
            func reason(_ headers: [String: String]) throws -> (Int, String?) {
                let response = try curl.send(path, headers: headers, body: "{}")
                return (response.status, response.json["reason"] as? String)
            }
            var noToken = Self.voipHeaders("x")
            noToken["authorization"] = nil
            #expect(try reason(noToken) == (403, "MissingProviderToken"))
            #expect(try reason(Self.voipHeaders("not.a.jwt")) == (403, "InvalidProviderToken"))
            #expect(
                try reason(Self.voipHeaders(Self.providerToken(fixture, keyID: "OTHERKEY01"))) == (
                    403, "InvalidProviderToken"
                ))
            #expect(
                try reason(Self.voipHeaders(Self.providerToken(fixture, team: "OTHERTEAM1"))) == (
                    403, "InvalidProviderToken"
                ))
            let stranger = try SigningKey.generate(.es256)
            #expect(
                try reason(Self.voipHeaders(Self.providerToken(fixture, key: stranger))) == (
                    403, "InvalidProviderToken"
                ))
            let old = try Self.providerToken(fixture, issuedAt: Date().addingTimeInterval(-3700))
            #expect(try reason(Self.voipHeaders(old)) == (403, "ExpiredProviderToken"))
            #expect(fixture.server.statistics.providerTokensAccepted == 0)
        }
    }

    @Test func aNewProviderTokenWithinTwentyMinutesIsTooManyUpdates() async throws {
        try await withMock { fixture, curl in
            let path = "/3/device/\(Self.token)"
            let first = try Self.providerToken(fixture, issuedAt: Date().addingTimeInterval(-10))
            #expect(try curl.send(path, headers: Self.voipHeaders(first), body: "{}").status == 200)
            #expect(try curl.send(path, headers: Self.voipHeaders(first), body: "{}").status == 200)
            let renewed = try Self.providerToken(fixture)
            let response = try curl.send(path, headers: Self.voipHeaders(renewed), body: "{}")
            #expect(response.status == 429)
            #expect(response.json["reason"] as? String == "TooManyProviderTokenUpdates")
            #expect(fixture.server.statistics.providerTokensAccepted == 1)
        }
    }

    @Test func checksHeadersAndPayloadLimits() async throws {
        try await withMock { fixture, curl in
            let jwt = try Self.providerToken(fixture)
            func reason(
                _ token: String = Self.token, change: (inout [String: String]) -> Void = { _ in }, body: String
            )
                throws -> (Int, String?)
            {
                var headers = Self.voipHeaders(jwt)
                change(&headers)
                let response = try curl.send("/3/device/\(token)", headers: headers, body: body)
                return (response.status, response.json["reason"] as? String)
            }
            #expect(try reason("abc", body: "{}") == (400, "BadDeviceToken"))
            #expect(try reason(change: { $0["apns-topic"] = nil }, body: "{}") == (400, "MissingTopic"))
            #expect(try reason(change: { $0["apns-topic"] = "com.example.app" }, body: "{}") == (400, "BadTopic"))
            #expect(try reason(change: { $0["apns-priority"] = "7" }, body: "{}") == (400, "BadPriority"))
            #expect(try reason(change: { $0["apns-id"] = "nope" }, body: "{}") == (400, "BadMessageId"))
            let padding = String(repeating: "x", count: 5120 - #"{"p":""}"#.utf8.count)
            #expect(try reason(body: #"{"p":"\#(padding)"}"#).0 == 200)  // 5,120 bytes: VoIP's limit
            #expect(try reason(body: #"{"p":"\#(padding)x"}"#) == (413, "PayloadTooLarge"))
            #expect(
                try reason(
                    change: {
                        $0["apns-topic"] = "com.example.app"
                        $0["apns-push-type"] = "alert"
                    }, body: #"{"p":"\#(padding)"}"#)
                    == (413, "PayloadTooLarge"))
        }
    }

    @Test func answersWhatItIsScriptedTo() async throws {
        try await withMock { fixture, curl in
            let headers = Self.voipHeaders(try Self.providerToken(fixture))
            let path = "/3/device/\(Self.token)"
            fixture.server.script(
                MockReply(service: .apns, status: 410, reason: "Unregistered", timestamp: 1_799_999_000_500))
            fixture.server.script(MockReply(service: .apns, status: 503, reason: "ServiceUnavailable", retryAfter: 7))
            let gone = try curl.send(path, headers: headers, body: "{}")
            #expect(gone.status == 410)
            #expect(gone.json["reason"] as? String == "Unregistered")
            #expect(gone.json["timestamp"] as? Int == 1_799_999_000_500)
            let unavailable = try curl.send(path, headers: headers, body: "{}")
            #expect(unavailable.status == 503)
            #expect(unavailable.headers["retry-after"] == "7")
            #expect(try curl.send(path, headers: headers, body: "{}").status == 200)  // Used up.
            #expect(fixture.server.recordedRequests.map(\.status) == [410, 503, 200])
        }
    }

    @Test func aScriptedReplyCanBeLimitedToOneToken() async throws {
        try await withMock { fixture, curl in
            let headers = Self.voipHeaders(try Self.providerToken(fixture))
            let other = String(repeating: "cd", count: 32)
            fixture.server.script(MockReply(service: .apns, token: other, status: 400, reason: "BadDeviceToken"))
            #expect(try curl.send("/3/device/\(Self.token)", headers: headers, body: "{}").status == 200)
            #expect(try curl.send("/3/device/\(other)", headers: headers, body: "{}").status == 400)
        }
    }

    @Test func goawayAndDroppedConnectionsLeaveTheRequestUnanswered() async throws {
        try await withMock { fixture, curl in
            let headers = Self.voipHeaders(try Self.providerToken(fixture))
            let path = "/3/device/\(Self.token)"
            for action in [MockReply.ConnectionAction.goaway, .drop] {
                fixture.server.script(MockReply(service: .apns, connection: action))
                #expect(throws: Command.Failed.self) { try curl.send(path, headers: headers, body: "{}") }
            }
            #expect(try curl.send(path, headers: headers, body: "{}").status == 200)
            #expect(fixture.server.recordedRequests.map(\.reason) == ["goaway", "drop", nil])
            #expect(fixture.server.statistics.connections == 3)
        }
    }

    /// The admin routes reach the same state as the Swift API, for `mock-push`.
    @Test func theAdminRoutesScriptRegisterAndReport() async throws {
        try await withMock { fixture, curl in
            let key = try SigningKey.generate(.es256)
            let registered = try curl.send(
                "/_mock/apns-keys",
                body: String(
                    decoding: try JSONSerialization.data(withJSONObject: [
                        "team_id": "TEAM000002", "key_id": "KEY0000002", "public_key": try key.verifyingKey().pem(),
                    ]), as: UTF8.self))
            #expect(registered.status == 204)
            #expect(
                try curl.send(
                    "/_mock/replies",
                    body: #"{"service":"apns","status":429,"reason":"TooManyRequests","retry_after":3}"#
                )
                .status == 204)
            let jwt = try Self.providerToken(fixture, keyID: "KEY0000002", team: "TEAM000002", key: key)
            let limited = try curl.send("/3/device/\(Self.token)", headers: Self.voipHeaders(jwt), body: "{}")
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "3")
            let requests = try curl.send("/_mock/requests", method: "GET")
            #expect(requests.status == 200)
            #expect(requests.body.contains(#""reason":"TooManyRequests""#))
            #expect(try curl.send("/_mock/stats", method: "GET").json["provider_tokens_accepted"] as? Int == 1)
            #expect(try curl.send("/_mock/replies", body: #"{"status":1}"#).status == 400)
        }
    }
}
