import Foundation
import TestSupport
import Testing

@Suite("/v1/providers")
struct ProviderTests {
    @Test func putCreatesThenUpdatesAndDeleteGuardsDevices() async throws {
        try await withTestServer { server in
            let created = try await server.request(
                "PUT", "/v1/providers/voip-app", json: ["service": "apns", "topic": "com.example.voip"])
            #expect(created.status == 201)
            #expect((created.object?["provider"] as? [String: Any])?["topic"] as? String == "com.example.voip")
            let updated = try await server.request(
                "PUT", "/v1/providers/voip-app", json: ["service": "apns", "topic": "com.example.other"])
            #expect(updated.status == 200)
            let listed = try await server.request("GET", "/v1/providers")
            #expect((listed.object?["providers"] as? [[String: Any]])?.count == 1)
            #expect(try await server.request("GET", "/v1/providers/voip-app").status == 200)
            #expect(try await server.request("GET", "/v1/providers/nope").status == 404)

            _ = try await server.register(user: "u", token: Tokens.apns(1), provider: "voip-app", type: "voip")
            let inUse = try await server.request("DELETE", "/v1/providers/voip-app")
            #expect(inUse.status == 409)
            let switchService = try await server.request("PUT", "/v1/providers/voip-app", json: ["service": "fcm"])
            #expect(switchService.status == 409)
            #expect(try await server.request("DELETE", "/v1/providers/voip-app?cascade=true").status == 204)
            #expect(try await server.deviceRows().isEmpty)
            #expect(try await server.request("DELETE", "/v1/providers/voip-app").status == 404)
        }
    }

    @Test(
        arguments: [
            (["service": "apns"], "topic"),
            (["service": "apns", "topic": "not a bundle"], "topic"),
            (["service": "fcm", "topic": "com.example.app"], "topic"),
            (["service": "sms"], "service"),
            (["service": "fcm", "projectid": "x"], "projectid"),
            (["service": "fcm", "name": "other"], "name"),
        ] as [([String: String], String)])
    func invalidProvidersNameTheField(body: [String: String], field: String) async throws {
        try await withTestServer { server in
            let response = try await server.request("PUT", "/v1/providers/good-name", json: body)
            #expect(response.status == 422)
            #expect(response.fieldErrors.contains(field), "\(response.body)")
            #expect(try await server.request("GET", "/v1/providers/good-name").status == 404)
        }
    }

    @Test func aBadNameInThePathIsRefused() async throws {
        try await withTestServer { server in
            let response = try await server.request("PUT", "/v1/providers/Bad%20Name", json: ["service": "fcm"])
            #expect(response.status == 422)
            #expect(response.fieldErrors == ["name"])
        }
    }
}
