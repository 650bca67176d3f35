import Foundation
import TestSupport
import Testing

@Suite("POST /v1/devices")
struct RegistrationTests {
    @Test func newTokenIsCreatedThenUnchangedThenUpdated() async throws {
        try await withDeviceServer { server in
            let token = Tokens.apns(1)
            let created = try await server.register(user: "alice", token: token, ["platform": "ios"])
            #expect(created.status == 201)
            #expect(created.object?["result"] as? String == "created")
            let device = try #require(created.object?["device"] as? [String: Any])
            #expect(device["environment"] as? String == "production")
            #expect(device["user_id"] as? String == "alice")

            let again = try await server.register(user: "alice", token: token, ["platform": "ios"])
            #expect(again.status == 200)
            #expect(again.object?["result"] as? String == "unchanged")
            let againDevice = try #require(again.object?["device"] as? [String: Any])
            #expect(againDevice["updated_at"] as? String == device["updated_at"] as? String)
            #expect(againDevice["last_seen_at"] as? String != device["last_seen_at"] as? String)

            let updated = try await server.register(
                user: "alice", token: token, ["platform": "ios", "app_version": "2.0"])
            #expect(updated.status == 200)
            #expect(updated.object?["result"] as? String == "updated")
            #expect(try await server.deviceRows().count == 1)
        }
    }

    /// The contract allows `"environment": null` for every type; for fcm it is the same as omitted.
    @Test func fcmRegistrationWithANullEnvironmentIsTaken() async throws {
        try await withDeviceServer { server in
            let created = try await server.register(
                user: "alice", token: Tokens.fcm(7), provider: "android", type: "fcm", ["environment": NSNull()])
            #expect(created.status == 201, "\(created.body)")
            let device = try #require(created.object?["device"] as? [String: Any])
            #expect(device["environment"] is NSNull)
        }
    }

    /// Literal paths are resources of their own: DELETE /v1/devices/export deletes no token named
    /// "export", it is a 405 listing what /v1/devices/export does answer.
    @Test(arguments: [
        ("DELETE", "/v1/devices/export", "GET, HEAD"), ("GET", "/v1/devices/batch", "POST"),
        ("DELETE", "/v1/devices/import", "POST"), ("DELETE", "/v1/users/alice/devices/sip", "POST"),
    ])
    func literalPathsAnswer405WithTheirOwnAllow(method: String, path: String, allow: String) async throws {
        try await withDeviceServer { server in
            let response = try await server.request(method, path)
            #expect(response.status == 405)
            #expect(response.header("Allow") == allow)
        }
    }

    @Test func tokenOfAnotherUserMovesAndLeavesThePreviousUser() async throws {
        try await withDeviceServer { server in
            let token = Tokens.apns(2)
            #expect(try await server.register(user: "alice", token: token).status == 201)
            let moved = try await server.register(user: "bob", token: token)
            #expect(moved.status == 200)
            #expect(moved.object?["result"] as? String == "moved")
            #expect(moved.object?["previous_user_id"] as? String == "alice")
            #expect(try await server.tokens(of: "alice").isEmpty)
            #expect(try await server.tokens(of: "bob") == [token])
        }
    }

    @Test func rotatedTokenReplacesTheInstallationsOldOneInTheSameTransaction() async throws {
        try await withDeviceServer { server in
            let old = Tokens.apns(3)
            let new = Tokens.apns(4)
            #expect(try await server.register(user: "alice", token: old, ["device_id": "install-1"]).status == 201)
            let voip = Tokens.apns(5)
            #expect(
                try await server.register(user: "alice", token: voip, type: "voip", ["device_id": "install-1"]).status
                    == 201)
            let rotated = try await server.register(user: "alice", token: new, ["device_id": "install-1"])
            #expect(rotated.status == 201)
            #expect(rotated.object?["replaced_token"] as? String == old)
            // The VoIP token of the same installation is another type: it stays.
            #expect(Set(try await server.tokens(of: "alice")) == [new, voip])
        }
    }

    @Test func registeringPastTheCapEvictsTheLeastRecentlySeen() async throws {
        var options = TestServer.Options()
        options.userDeviceCap = 3
        try await withDeviceServer(options) { server in
            for seed in 10..<13 {
                #expect(try await server.register(user: "carol", token: Tokens.apns(seed)).status == 201)
            }
            // Seeing token 10 again makes 11 the least recently seen.
            #expect(try await server.register(user: "carol", token: Tokens.apns(10)).status == 200)
            let fourth = try await server.register(user: "carol", token: Tokens.apns(13))
            #expect(fourth.status == 201)
            #expect(fourth.object?["evicted_tokens"] as? [String] == [Tokens.apns(11)])
            #expect(Set(try await server.tokens(of: "carol")) == [Tokens.apns(10), Tokens.apns(12), Tokens.apns(13)])
        }
    }

    @Test func unknownProviderAndWrongTypeAreRefusedNamingTheField() async throws {
        try await withDeviceServer { server in
            let unknown = try await server.register(user: "alice", token: Tokens.apns(6), provider: "nope")
            #expect(unknown.status == 422)
            #expect(unknown.header("Content-Type")?.hasPrefix("application/problem+json") == true)
            #expect(unknown.fieldErrors == ["provider"])
            let wrongType = try await server.register(user: "alice", token: Tokens.fcm(6), provider: "ios", type: "fcm")
            #expect(wrongType.status == 422)
            #expect(wrongType.fieldErrors == ["type"])
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    @Test(
        arguments: [
            (["enviroment": "sandbox"], "enviroment"),
            (["token": "{length=32,bytes=0x1234abcd...}"], "token"),
            (["token": "abc"], "token"),
            (["environment": "staging"], "environment"),
            (["user_id": ""], "user_id"),
            (["user_id": "bad\u{7}id"], "user_id"),
            (["user_id": String(repeating: "é", count: 128)], "user_id"),
            (["device_id": String(repeating: "x", count: 129)], "device_id"),
            (["type": "gcm"], "type"),
        ] as [([String: String], String)])
    func invalidFieldsAreNamedAndChangeNothing(extra: [String: String], field: String) async throws {
        try await withDeviceServer { server in
            let response = try await server.register(user: "alice", token: Tokens.apns(7), extra)
            #expect(response.status == 422)
            #expect(response.fieldErrors.contains(field))
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    @Test func nsDataDescriptionIsExplained() async throws {
        try await withDeviceServer { server in
            let response = try await server.register(
                user: "alice", token: "{length=32,bytes=0xab12cd34ef56ab12...cd34ef56ab12cd34}")
            #expect(response.status == 422)
            #expect(response.body.contains("NSData"))
        }
    }

    @Test func environmentIsRefusedForFCMAndTokensAreStoredLowercase() async throws {
        try await withDeviceServer { server in
            let fcm = try await server.register(
                user: "alice", token: Tokens.fcm(1), provider: "android", type: "fcm", ["environment": "sandbox"])
            #expect(fcm.status == 422)
            #expect(fcm.fieldErrors == ["environment"])
            let upper = Tokens.apns(8).uppercased()
            let created = try await server.register(user: "alice", token: upper, ["environment": "sandbox"])
            #expect(created.status == 201)
            #expect((created.object?["device"] as? [String: Any])?["token"] as? String == upper.lowercased())
            let android = try await server.register(
                user: "alice", token: Tokens.fcm(2), provider: "android", type: "fcm")
            #expect(android.status == 201)
            #expect((android.object?["device"] as? [String: Any])?["environment"] is NSNull)
        }
    }

    @Test func malformedJSONAndWrongContentTypeAre4xxAndChangeNothing() async throws {
        try await withDeviceServer { server in
            let malformed = try await server.request("POST", "/v1/devices", body: "{\"user_id\": ")
            #expect(malformed.status == 400)
            #expect(malformed.header("Content-Type")?.hasPrefix("application/problem+json") == true)
            let notObject = try await server.request("POST", "/v1/devices", body: "[1,2]")
            #expect(notObject.status == 422)
            let form = try await server.request(
                "POST", "/v1/devices", body: "user_id=alice", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
            #expect(try await server.deviceRows().isEmpty)
        }
    }
}

extension TestResponse {
    /// The `field` of each entry of a problem's `errors`.
    var fieldErrors: [String] {
        ((object?["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String }
    }
}
