import Foundation
import TestSupport
import Testing

@Suite("/v1/users/{user_id}/devices and /v1/devices/{token}")
struct UserDevicesTests {
    @Test func listIsNewestFirstWithFilters() async throws {
        try await withDeviceServer { server in
            _ = try await server.register(user: "dana", token: Tokens.apns(1))
            _ = try await server.register(user: "dana", token: Tokens.apns(2), type: "voip")
            _ = try await server.register(user: "dana", token: Tokens.fcm(3), provider: "android", type: "fcm")
            #expect(try await server.tokens(of: "dana") == [Tokens.fcm(3), Tokens.apns(2), Tokens.apns(1)])
            #expect(try await server.tokens(of: "dana", query: "?type=voip") == [Tokens.apns(2)])
            #expect(try await server.tokens(of: "dana", query: "?provider=ios") == [Tokens.apns(2), Tokens.apns(1)])
            #expect(try await server.tokens(of: "nobody").isEmpty)
            let typo = try await server.request("GET", "/v1/users/dana/devices?tpye=voip")
            #expect(typo.status == 422)
        }
    }

    @Test func lateLogoutNeverRemovesTheNextUsersPhone() async throws {
        try await withDeviceServer { server in
            let token = Tokens.apns(4)
            _ = try await server.register(user: "alice", token: token)
            _ = try await server.register(user: "bob", token: token)  // the phone changed hands
            let late = try await server.request("DELETE", "/v1/users/alice/devices/\(token)")
            #expect(late.status == 204)
            #expect(try await server.tokens(of: "bob") == [token])
            let own = try await server.request("DELETE", "/v1/users/bob/devices/\(token)?provider=ios")
            #expect(own.status == 204)
            #expect(try await server.tokens(of: "bob").isEmpty)
        }
    }

    @Test func logoutEverywhereCountsWhatItDeleted() async throws {
        try await withDeviceServer { server in
            for seed in 1...3 { _ = try await server.register(user: "erin", token: Tokens.apns(seed)) }
            _ = try await server.register(user: "frank", token: Tokens.apns(9))
            let response = try await server.request("DELETE", "/v1/users/erin/devices")
            #expect(response.status == 200)
            #expect(response.object?["deleted"] as? Int == 3)
            #expect(try await server.tokens(of: "frank") == [Tokens.apns(9)])
        }
    }

    @Test func deviceByTokenAndDeleteWhoeverOwnsIt() async throws {
        try await withDeviceServer { server in
            let token = Tokens.apns(5)
            _ = try await server.register(user: "gina", token: token)
            let found = try await server.request("GET", "/v1/devices/\(token.uppercased())")
            #expect(found.status == 200)
            #expect((found.object?["device"] as? [String: Any])?["user_id"] as? String == "gina")
            #expect(try await server.request("GET", "/v1/devices/\(Tokens.apns(6))").status == 404)
            #expect(try await server.request("GET", "/v1/devices/\(token)?provider=android").status == 404)
            #expect(try await server.request("DELETE", "/v1/devices/\(token)").status == 204)
            #expect(try await server.request("GET", "/v1/devices/\(token)").status == 404)
            #expect(try await server.request("DELETE", "/v1/devices/\(token)").status == 204)
        }
    }

    @Test func aTokenUnderTwoProvidersNeedsTheProviderNamed() async throws {
        try await withDeviceServer { server in
            try await server.addProvider("ios-beta", service: .apns, topic: "com.example.beta")
            let token = Tokens.apns(7)
            _ = try await server.register(user: "hal", token: token)
            _ = try await server.register(user: "hal", token: token, provider: "ios-beta")
            #expect(try await server.request("GET", "/v1/devices/\(token)").status == 409)
            #expect(try await server.request("GET", "/v1/devices/\(token)?provider=ios-beta").status == 200)
        }
    }

    @Test(arguments: ["user@example.com", "first last", "Zoë 日本 ✓", "tenant/42", "100%", "a+b"])
    func userIDsWithAwkwardCharactersWorkInPaths(user: String) async throws {
        try await withDeviceServer { server async throws in
            let token = Tokens.apns(user.utf8.count)
            #expect(try await server.register(user: user, token: token).status == 201)
            #expect(try await server.tokens(of: user) == [token])
            let path = "/v1/users/\(Paths.segment(user))/devices/\(token)"
            #expect(try await server.request("DELETE", path).status == 204)
            #expect(try await server.tokens(of: user).isEmpty)
        }
    }

    // Found by scripts/fuzz-contract: a bad path or query value was a 500, not a 422 naming it.
    @Test(arguments: [
        ("GET", "/v1/users/%01/devices", "user_id"), ("DELETE", "/v1/users/%01/devices", "user_id"),
        ("GET", "/v1/users/ivy/devices?type=AAA", "type"), ("GET", "/v1/users/ivy/devices?provider=%C3%97", "provider"),
        ("GET", "/v1/devices/\(Tokens.apns(8))?provider=%C3%97", "provider"),
        ("DELETE", "/v1/devices/\(Tokens.apns(8))?provider=%C3%97", "provider"),
        ("DELETE", "/v1/users/ivy/devices/\(Tokens.apns(8))?provider=%C3%97", "provider"),
    ])
    func invalidPathOrQueryValuesAre422NamingTheParameter(method: String, path: String, field: String) async throws {
        try await withDeviceServer { server in
            let response = try await server.request(method, path)
            #expect(response.status == 422)
            #expect(response.fieldErrors == [field])
        }
    }
}
