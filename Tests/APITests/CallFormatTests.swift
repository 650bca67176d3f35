import Foundation
import TestSupport
import Testing

/// `call_format` and `templates` on `PUT /v1/providers/{name}`: stored, shown back, replaced like
/// the provider's other fields, and refused field by field without changing anything.
@Suite("/v1/providers call formats")
struct CallFormatTests {
    static var templates: [String: Any] {
        [
            "call.missed": ["title": "Missed call", "body": "You missed a call from {{ user.display_name }}"],
            "call.ring": ["body": "{{ user.id }} calls {{ receiver.id }}"],
        ]
    }

    static func provider(_ response: TestResponse) -> [String: Any]? { response.object?["provider"] as? [String: Any] }

    @Test func callFormatAndTemplatesRoundTripAndAPutWithoutThemResetsThem() async throws {
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

            // Like `endpoint`, the fields are the provider's: a PUT without them sets the defaults.
            let reset = try await server.request("PUT", "/v1/providers/android", json: ["service": "fcm"])
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
