import Foundation
import TestSupport
import Testing

@Suite("GET /v1/devices (listing across users)")
struct ListingTests {
    @Test func consistencyIsTakenBesideTheFilter() async throws {
        try await withDeviceServer { server in
            _ = try await server.register(user: "strong-reader", token: Tokens.apns(424_242))
            let page = try await server.request("GET", "/v1/devices?consistency=strong&user_id=strong-reader&limit=5")
            #expect(page.status == 200)
            #expect((page.object?["devices"] as? [[String: Any]])?.count == 1)
            #expect(try await server.request("GET", "/v1/devices?consistency=eventual").status == 422)
        }
    }

    @Test func pagingVisitsEveryDeviceOnceWhileTheTableIsWritten() async throws {
        try await withDeviceServer { server in
            // 2,500 devices straight into the table: the subject is paging, not registering.
            _ = try await server.pool.withConnection { connection in
                try connection.query(
                    """
                    INSERT INTO devices (provider, token, type, user_id, environment, created_at, updated_at, last_seen_at)
                    SELECT 'ios', lpad(to_hex(n), 64, '0'), 'apns', 'bulk-' || (n % 100), 'production', now(), now(), now()
                      FROM generate_series(1, 2500) n
                    """)
            }
            let writer = Task {
                // Meanwhile: re-registrations (updates in place), moves and new devices.
                for n in 0..<150 {
                    _ = try await server.register(user: "mover-\(n % 7)", token: String(format: "%064x", n * 13 + 1))
                    _ = try await server.register(user: "newcomer", token: Tokens.apns(900_000 + n))
                }
            }
            var seen: [String: Int] = [:]
            var cursor: String?
            var pages = 0
            repeat {
                let query = "?limit=97" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await server.request("GET", "/v1/devices\(query)")
                #expect(page.status == 200)
                for device in page.object?["devices"] as? [[String: Any]] ?? [] {
                    seen[device["token"] as? String ?? "", default: 0] += 1
                }
                cursor = page.object?["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 200
            try await writer.value
            let original = (1...2500).map { String(format: "%064x", $0) }
            #expect(original.allSatisfy { seen[$0] == 1 })
            #expect(seen.values.allSatisfy { $0 == 1 })
        }
    }

    @Test func filtersAndBadCursors() async throws {
        try await withDeviceServer { server in
            #expect(
                try await server.register(user: "ivy", token: Tokens.apns(1), ["environment": "sandbox"]).status == 201)
            #expect(
                try await server.register(user: "ivy", token: Tokens.fcm(2), provider: "android", type: "fcm").status
                    == 201)
            #expect(try await server.register(user: "jon", token: Tokens.apns(3)).status == 201)
            func tokens(_ query: String) async throws -> [String] {
                let response = try await server.request("GET", "/v1/devices?\(query)")
                return (response.object?["devices"] as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
            }
            #expect(try await tokens("user_id=ivy") == [Tokens.apns(1), Tokens.fcm(2)])
            #expect(try await tokens("environment=sandbox") == [Tokens.apns(1)])
            #expect(try await tokens("type=fcm") == [Tokens.fcm(2)])
            #expect(try await tokens("provider=ios&user_id=jon") == [Tokens.apns(3)])
            #expect(try await tokens("seen_before=2000-01-01T00:00:00Z").isEmpty)
            #expect(try await tokens("seen_before=2999-01-01T00:00:00Z").count == 3)
            let first = try await server.request("GET", "/v1/devices?limit=2")
            #expect(first.object?["next_cursor"] is String)
            let last = try await server.request("GET", "/v1/devices?limit=3")
            #expect(last.object?["next_cursor"] is NSNull)
            for bad in ["limit=0", "limit=1001", "cursor=garbage", "seen_before=yesterday", "type=sms", "colour=red"] {
                let response = try await server.request("GET", "/v1/devices?\(bad)")
                #expect(response.status == 422, "\(bad)")
            }
        }
    }
}
