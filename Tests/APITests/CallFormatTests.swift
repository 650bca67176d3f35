import Foundation
import RegistryCrypto
import TestSupport
import Testing

/// `call_format` and `templates` on `PUT /v1/providers/{name}`: stored, shown back, kept by a PUT
/// that does not name them, reset by `null`, and refused field by field without changing anything.
@Suite("/v1/providers call formats")
struct CallFormatTests {
    static var templates: [String: Any] {
        [
            "call.missed": ["title": "Missed call", "body": "You missed a call from {{ user.display_name }}"],
            "call.ring": ["body": "{{ user.id }} calls {{ receiver.id }}"],
        ]
    }

    static func provider(_ response: TestResponse) -> [String: Any]? { response.object?["provider"] as? [String: Any] }

    @Test func callFormatAndTemplatesRoundTripAndAPutWithoutThemKeepsThem() async throws {
        try await withTestServer { server in
            let plain = try await server.request("PUT", "/v1/providers/android", json: ["service": "fcm"])
            #expect(Self.provider(plain)?["call_format"] as? String == "stream")
            #expect((Self.provider(plain)?["templates"] as? [String: Any])?.isEmpty == true)

            let put = try await server.request(
                "PUT", "/v1/providers/android",
                json: ["service": "fcm", "call_format": "signalwire", "templates": Self.templates])
            #expect(put.status == 200, "\(put.body)")
            for response in [put, try await server.request("GET", "/v1/providers/android")] {
                let provider = try #require(Self.provider(response))
                #expect(provider["call_format"] as? String == "signalwire")
                #expect(
                    NSDictionary(dictionary: provider["templates"] as? [String: Any] ?? [:]) == Self.templates
                        as NSDictionary)
            }
            let listed = try await server.request("GET", "/v1/providers")
            let first = try #require((listed.object?["providers"] as? [[String: Any]])?.first)
            #expect(first["call_format"] as? String == "signalwire")
            #expect((first["templates"] as? [String: Any])?.keys.sorted() == ["call.missed", "call.ring"])

            // A PUT that does not name them (a key rotation, a topic fixed) keeps them; null resets them.
            let kept = try await server.request(
                "PUT", "/v1/providers/android", json: ["service": "fcm", "project_id": "other-project"])
            #expect(Self.provider(kept)?["call_format"] as? String == "signalwire", "\(kept.body)")
            #expect(
                (Self.provider(kept)?["templates"] as? [String: Any])?.keys.sorted() == ["call.missed", "call.ring"])
            #expect(Self.provider(kept)?["project_id"] as? String == "other-project")
            let reset = try await server.request(
                "PUT", "/v1/providers/android",
                json: ["service": "fcm", "call_format": NSNull(), "templates": NSNull()])
            #expect(Self.provider(reset)?["call_format"] as? String == "stream")
            #expect((Self.provider(reset)?["templates"] as? [String: Any])?.isEmpty == true)
        }
    }

    @Test(
        arguments: [
            (#"{"call_format": "sms"}"#, "call_format"),
            (#"{"call_format": 3}"#, "call_format"),
            (#"{"templates": {"call.missed": {"body": "from {{ user.nickname }}"}}}"#, "templates.call.missed.body"),
            (#"{"templates": {"call.rejected": {"body": "x"}}}"#, "templates.call.rejected"),
            (#"{"templates": {"call.missed": {"subtitle": "x"}}}"#, "templates.call.missed.subtitle"),
            (#"{"templates": "Missed call"}"#, "templates"),
        ])
    func badFormatsAndTemplatesNameTheFieldAndChangeNothing(extra: String, field: String) async throws {
        try await withTestServer { server in
            let saved: [String: Any] = ["service": "fcm", "call_format": "dialstack", "templates": Self.templates]
            _ = try await server.request("PUT", "/v1/providers/android", json: saved)
            let before = try await server.request("GET", "/v1/providers/android")
            let response = try await server.request(
                "PUT", "/v1/providers/android", json: saved.merging(try JSONObject.parse(extra)) { $1 })
            #expect(response.status == 422)
            #expect(response.fieldErrors == [field], "\(response.body)")
            #expect(try await server.request("GET", "/v1/providers/android").body == before.body)
        }
    }
}

extension CallFormatTests {
    /// A key rotation by `PUT` (new credentials, the same fields otherwise) keeps what it does
    /// not name: the format, the templates and the endpoint.
    @Test func aKeyRotationKeepsTheFormatTemplatesAndEndpoint() async throws {
        try await withTestServer { server in
            let first: [String: Any] = [
                "service": "apns", "topic": "com.example.app", "endpoint": "https://push.example:8443",
                "call_format": "dialstack", "templates": Self.templates,
                "credentials": try ProviderCredentialTests.apnsCredentials(),
            ]
            #expect(try await server.request("PUT", "/v1/providers/ios", json: first).status == 201)
            let rotated = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app",
                    "credentials": try ProviderCredentialTests.apnsCredentials(key: try SigningKey.generate(.es256)),
                ])
            #expect(rotated.status == 200, "\(rotated.body)")
            let provider = try #require(Self.provider(try await server.request("GET", "/v1/providers/ios")))
            #expect(provider["call_format"] as? String == "dialstack")
            #expect((provider["templates"] as? [String: Any])?.keys.sorted() == ["call.missed", "call.ring"])
            #expect(provider["endpoint"] as? String == "https://push.example:8443")
            let reset = try await server.request(
                "PUT", "/v1/providers/ios", json: ["service": "apns", "topic": "com.example.app", "endpoint": NSNull()])
            #expect(Self.provider(reset)?["endpoint"] == nil || Self.provider(reset)?["endpoint"] is NSNull)
        }
    }
}
