import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import Testing

/// The mock's FCM side and Google's OAuth token endpoint, driven by curl over TLS and HTTP/2.
@Suite struct MockFCMTests {
    struct Assertion: Encodable {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    static func assertion(
        _ fixture: MockPushFixture, scope: String = scope, audience: String? = nil, key: SigningKey? = nil,
        lifetime: Int = 3600
    ) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        return try JSONWebToken.sign(
            claims: Assertion(
                iss: fixture.clientEmail, scope: scope, aud: audience ?? fixture.tokenURI, iat: now, exp: now + lifetime
            ),
            keyID: "test-key-1", with: key ?? fixture.fcmKey)
    }

    static func exchange(_ curl: Curl, _ assertion: String) throws -> Curl.Response {
        try curl.send(
            "/token", headers: ["content-type": "application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
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

    @Test func exchangesAValidAssertionAndSendsWithTheAccessToken() async throws {
        try await withMock { fixture, curl in
            let token = try Self.exchange(curl, Self.assertion(fixture))
            #expect(token.status == 200)
            #expect(token.json["token_type"] as? String == "Bearer")
            #expect(token.json["expires_in"] as? Int == 3599)
            let accessToken = try #require(token.json["access_token"] as? String)
            let sent = try curl.send(
                "/v1/projects/\(fixture.projectID)/messages:send",
                headers: ["authorization": "Bearer \(accessToken)", "content-type": "application/json"],
                body: #"{"message":{"token":"fcm-token-1","data":{"call_id":"c1"},"android":{"priority":"high"}}}"#)
            #expect(sent.httpVersion == "HTTP/2")
            #expect(sent.status == 200)
            #expect((sent.json["name"] as? String)?.hasPrefix("projects/\(fixture.projectID)/messages/") == true)
            #expect(fixture.server.recordedRequests.map(\.endpoint) == [.oauth, .fcm])
            #expect(fixture.server.recordedRequests[0].body.isEmpty)  // The assertion is not kept.
            #expect(fixture.server.recordedRequests.last?.deviceToken == "fcm-token-1")
            #expect(fixture.server.recordedRequests.last?.credential == fixture.clientEmail)
            #expect(fixture.server.statistics.accessTokensIssued == 1)
        }
    }

    @Test func refusesAssertionsAsGoogleDoes() async throws {
        try await withMock { fixture, curl in
            let refused: [(assertion: String, error: String)] = [
                (try Self.assertion(fixture, audience: "https://oauth2.googleapis.com/token"), "invalid_grant"),
                (try Self.assertion(fixture, scope: "https://www.googleapis.com/auth/cloud-platform"), "invalid_scope"),
                (try Self.assertion(fixture, key: SigningKey.generate(.rs256)), "invalid_grant"),
                (try Self.assertion(fixture, lifetime: 7200), "invalid_grant"),
                ("not-a-jwt", "invalid_grant"),
            ]
            for (assertion, expected) in refused {
                let response = try Self.exchange(curl, assertion)
                #expect(response.status == 400)
                #expect(response.json["error"] as? String == expected)
            }
            #expect(fixture.server.statistics.accessTokensIssued == 0)
        }
    }

    @Test func sendingNeedsAnIssuedTokenForThatProject() async throws {
        try await withMock { fixture, curl in
            let body = #"{"message":{"token":"t","data":{"a":"b"}}}"#
            let unknown = try curl.send(
                "/v1/projects/\(fixture.projectID)/messages:send", headers: ["authorization": "Bearer made-up"],
                body: body)
            #expect(unknown.status == 401)
            #expect((unknown.json["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
            let accessToken = try Self.exchange(curl, Self.assertion(fixture)).json["access_token"] as! String
            let otherProject = try curl.send(
                "/v1/projects/other-project/messages:send", headers: ["authorization": "Bearer \(accessToken)"],
                body: body)
            #expect(otherProject.status == 403)
        }
    }

    @Test func checksTheMessageAndAnswersScriptedErrorsInGoogleForm() async throws {
        try await withMock { fixture, curl in
            let accessToken = try Self.exchange(curl, Self.assertion(fixture)).json["access_token"] as! String
            let path = "/v1/projects/\(fixture.projectID)/messages:send"
            let headers = ["authorization": "Bearer \(accessToken)"]
            let numeric = try curl.send(path, headers: headers, body: #"{"message":{"token":"t","data":{"ring":30}}}"#)
            #expect(numeric.status == 400)
            let noToken = try curl.send(path, headers: headers, body: #"{"message":{"data":{"a":"b"}}}"#)
            #expect(noToken.status == 400)
            #expect(noToken.body.contains(#""field":"message.token""#))
            fixture.server.script(MockReply(service: .fcm, status: 404, reason: "UNREGISTERED"))
            fixture.server.script(MockReply(service: .fcm, status: 503, reason: "UNAVAILABLE", retryAfter: 2))
            let gone = try curl.send(path, headers: headers, body: #"{"message":{"token":"t"}}"#)
            #expect(gone.status == 404)
            let error = try #require(gone.json["error"] as? [String: Any])
            #expect(error["status"] as? String == "NOT_FOUND")
            #expect(gone.body.contains(#""errorCode":"UNREGISTERED""#))
            let unavailable = try curl.send(path, headers: headers, body: #"{"message":{"token":"t"}}"#)
            #expect(unavailable.status == 503)
            #expect(unavailable.headers["retry-after"] == "2")
            #expect(fixture.server.recordedRequests.compactMap(\.reason).suffix(2) == ["UNREGISTERED", "UNAVAILABLE"])
        }
    }
}
