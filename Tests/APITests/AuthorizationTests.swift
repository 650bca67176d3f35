import API
import Foundation
import Postgres
import RegistryCore
import Store
import TestSupport
import Testing

@Suite("API keys and scopes")
struct AuthorizationTests {
    enum Scope: String {
        case read = "devices:read"
        case write = "devices:write"
        case admin
    }

    /// Every /v1 route with a request that succeeds (or is a plain 404) for an allowed key.
    nonisolated(unsafe) static let routes: [(method: String, path: String, scope: Scope, json: [String: Any]?)] = [
        ("POST", "/v1/devices", .write, ["user_id": "u", "provider": "ios", "type": "apns", "token": Tokens.apns(1)]),
        ("GET", "/v1/devices", .read, nil),
        ("GET", "/v1/devices/\(Tokens.apns(2))", .read, nil),
        ("DELETE", "/v1/devices/\(Tokens.apns(2))", .write, nil),
        ("GET", "/v1/users/u/devices", .read, nil),
        ("DELETE", "/v1/users/u2/devices", .write, nil),
        ("DELETE", "/v1/users/u/devices/\(Tokens.apns(3))", .write, nil),
        ("POST", "/v1/keys", .admin, ["name": "made", "scopes": ["devices:read"]]),
        ("GET", "/v1/keys", .admin, nil),
        ("DELETE", "/v1/keys/00000000-0000-4000-8000-000000000000", .admin, nil),
        ("PUT", "/v1/providers/extra", .admin, ["service": "fcm"]),
        ("GET", "/v1/providers", .admin, nil),
        ("GET", "/v1/providers/ios", .admin, nil),
        ("DELETE", "/v1/providers/unused", .admin, nil),
    ]

    @Test func everyRouteRefusesWhatItShouldAndNothingLeaks() async throws {
        var options = TestServer.Options()
        options.api.badKeyLimit = 10_000
        try await withDeviceServer(options) { server in
            let read = try await server.key([.devicesRead]).secret
            let write = try await server.key([.devicesWrite]).secret
            let revoked = try await server.key([.admin])
            #expect(try await server.request("DELETE", "/v1/keys/\(revoked.id)").status == 204)
            let unknown = "drk_" + String(repeating: "A", count: 43)
            let refusals: [(String, TestServer.Key, Int)] = [
                ("no key", .none, 401), ("empty", .header("Bearer "), 401), ("malformed", .bearer("not-a-key"), 401),
                ("basic", .header("Basic dXNlcjpwYXNz"), 401), ("wrong", .bearer(unknown), 401),
                ("revoked", .bearer(revoked.secret), 401),
            ]
            for route in Self.routes {
                for (name, key, status) in refusals {
                    let response = try await server.request(route.method, route.path, key: key, json: route.json)
                    #expect(response.status == status, "\(route.method) \(route.path) with \(name)")
                    #expect(response.header("WWW-Authenticate") == "Bearer")
                    Self.expectOnlyAProblem(response)
                }
                for (scope, secret) in [(Scope.read, read), (.write, write)] where scope != route.scope {
                    let response = try await server.request(
                        route.method, route.path, key: .bearer(secret), json: route.json)
                    #expect(response.status == 403, "\(route.method) \(route.path) with \(scope)")
                    Self.expectOnlyAProblem(response)
                }
                let allowed = route.scope == .read ? read : route.scope == .write ? write : server.adminKey
                let ok = try await server.request(route.method, route.path, key: .bearer(allowed), json: route.json)
                #expect(
                    [200, 201, 204, 404].contains(ok.status), "\(route.method) \(route.path): \(ok.status) \(ok.body)")
                let asAdmin = try await server.request(route.method, route.path, json: route.json)
                #expect(![401, 403].contains(asAdmin.status), "admin implies every scope: \(route.path)")
            }
            #expect(!server.logs.joined.contains(server.adminKey))
            #expect(!server.logs.joined.contains(read) && !server.logs.joined.contains(write))
        }
    }

    static func expectOnlyAProblem(_ response: TestResponse) {
        #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        let keys = Set((response.object ?? [:]).keys)
        #expect(keys.isSubset(of: ["type", "title", "status", "detail", "errors"]), "leaked: \(keys)")
    }

    @Test func revocationTakesEffectOnTheNextRequest() async throws {
        try await withDeviceServer { server in
            let key = try await server.key([.devicesRead])
            #expect(try await server.request("GET", "/v1/users/u/devices", key: .bearer(key.secret)).status == 200)
            #expect(try await server.request("DELETE", "/v1/keys/\(key.id)").status == 204)
            #expect(try await server.request("GET", "/v1/users/u/devices", key: .bearer(key.secret)).status == 401)
        }
    }

    /// Another process (the CLI, another instance) revokes through the database; its notification
    /// empties this instance's key cache.
    @Test func revocationElsewhereStopsTheKeyAtOnce() async throws {
        try await withDeviceServer { server in
            let key = try await server.key([.devicesRead])
            for _ in 0..<3 {  // now cached, once the listener is up
                #expect(try await server.request("GET", "/v1/users/u/devices", key: .bearer(key.secret)).status == 200)
                try await Task.sleep(for: .milliseconds(100))
            }
            let elsewhere = PostgresPool(
                configuration: PostgresConfiguration(url: server.pool.configuration.url), logger: .init(label: "cli"))
            try await APIKeyStore(pool: elsewhere).revoke(id: key.id)
            await elsewhere.shutdown()
            var status = 0
            let revoked = ContinuousClock.now
            while status != 401, ContinuousClock.now - revoked < .seconds(2) {
                status = try await server.request("GET", "/v1/users/u/devices", key: .bearer(key.secret)).status
            }
            #expect(status == 401)
            #expect(ContinuousClock.now - revoked < .seconds(1))
        }
    }

    @Test func keysAreShownOnceAndListedWithoutSecrets() async throws {
        try await withDeviceServer { server in
            let created = try await server.request(
                "POST", "/v1/keys", json: ["name": "backend", "scopes": ["devices:write"]])
            #expect(created.status == 201)
            let secret = try #require(created.object?["secret"] as? String)
            #expect(secret.hasPrefix("drk_") && secret.count == 47)
            #expect(try await server.register(user: "u", token: Tokens.apns(9), key: .bearer(secret)).status == 201)
            let listed = try await server.request("GET", "/v1/keys")
            #expect(listed.status == 200)
            #expect(!listed.body.contains(secret))
            #expect(!listed.body.contains("hash"))
            let stored = try await server.pool.withConnection { try $0.query("SELECT secret_hash FROM api_keys").rows }
            let hashes = stored.compactMap { $0["secret_hash"] }
            #expect(hashes.count == stored.count && !hashes.contains { $0.contains(secret) })
            for bad: [String: Any] in [
                ["name": "x", "scopes": []], ["name": "x", "scopes": ["root"]], ["name": "", "scopes": ["admin"]],
                ["scopes": ["admin"]], ["name": "x", "scopes": ["admin"], "secret": "mine"],
            ] {
                #expect(try await server.request("POST", "/v1/keys", json: bad).status == 422, "\(bad)")
            }
        }
    }

    @Test func repeatedBadKeysAreSlowedDownWithoutAffectingGoodKeys() async throws {
        var options = TestServer.Options()
        options.api.badKeyLimit = 5
        try await withDeviceServer(options) { server in
            for _ in 0..<5 {
                #expect(try await server.request("GET", "/v1/users/u/devices", key: .bearer("drk_wrong")).status == 401)
            }
            let limited = try await server.request("GET", "/v1/users/u/devices", key: .bearer("drk_wrong"))
            #expect(limited.status == 429)
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
            // A valid key from the same address is checked first and served: behind a load
            // balancer every client shares that address.
            #expect(try await server.request("GET", "/v1/users/u/devices").status == 200)
        }
    }

    @Test func behindATrustedProxyEachClientIsCountedOnItsOwn() async throws {
        var options = TestServer.Options()
        options.api.badKeyLimit = 2
        options.api.trustedProxies = try #require(TrustedProxies("127.0.0.0/8, ::1"))
        try await withDeviceServer(options) { server in
            var statuses: [Int] = []
            for client in ["203.0.113.7", "203.0.113.7", "203.0.113.7", "198.51.100.9", "192.0.2.1, 203.0.113.7"] {
                let response = try await server.request(
                    "GET", "/v1/users/u/devices", key: .bearer("drk_wrong"), headers: [("X-Forwarded-For", client)])
                statuses.append(response.status)
            }
            // The third bad key of 203.0.113.7 is one too many; another client behind the same proxy
            // is not affected, and what a client writes before the proxy's entry does not make it
            // someone else.
            #expect(statuses == [401, 401, 429, 401, 429])
        }
    }

    @Test func forwardingHeadersFromAnUntrustedPeerAreIgnored() async throws {
        var options = TestServer.Options()
        options.api.badKeyLimit = 2
        try await withDeviceServer(options) { server in
            for (index, expected) in [401, 401, 429].enumerated() {
                let response = try await server.request(
                    "GET", "/v1/users/u/devices", key: .bearer("drk_wrong"),
                    headers: [("X-Forwarded-For", "203.0.113.\(index)")])
                #expect(response.status == expected)
            }
        }
    }
}
