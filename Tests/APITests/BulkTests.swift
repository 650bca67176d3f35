import Foundation
import TestSupport
import Testing

@Suite("Batch, import and export")
struct BulkTests {
    static func registration(_ user: String, _ token: String, provider: String = "ios", type: String = "apns")
        -> [String: Any]
    {
        ["user_id": user, "provider": provider, "type": type, "token": token]
    }

    @Test func batchAnswersEachItemInOrderAndOneBadItemFailsNoOther() async throws {
        try await withDeviceServer { server in
            _ = try await server.register(user: "old-owner", token: Tokens.apns(3))
            let items: [[String: Any]] = [
                Self.registration("a", Tokens.apns(1)),
                Self.registration("a", "not-hex"),
                Self.registration("a", Tokens.apns(1)),
                Self.registration("b", Tokens.apns(3)),
                Self.registration("c", Tokens.apns(4), provider: "nope"),
                Self.registration("c", Tokens.fcm(5), provider: "android", type: "fcm"),
            ]
            let response = try await server.request("POST", "/v1/devices/batch", json: ["devices": items])
            #expect(response.status == 200)
            let results = response.object?["results"] as? [[String: Any]] ?? []
            #expect(results.map { $0["index"] as? Int } == [0, 1, 2, 3, 4, 5])
            #expect(results.map { $0["status"] as? Int } == [201, 422, 200, 200, 422, 201])
            #expect(results.map { $0["result"] as? String } == ["created", nil, "unchanged", "moved", nil, "created"])
            #expect(results[3]["previous_user_id"] as? String == "old-owner")
            #expect(
                ((results[1]["error"] as? [String: Any])?["errors"] as? [[String: Any]])?.first?["field"] as? String
                    == "token")
            #expect(try await server.deviceRows().count == 3)
        }
    }

    @Test func batchLimitsItsSize() async throws {
        try await withDeviceServer { server in
            // About 80 KB: past the 64 KiB of other routes, within the batch route's 1 MiB.
            let many = (0..<600).map { Self.registration("bulk-\($0 % 20)", Tokens.apns(10_000 + $0)) }
            let big = try await server.request("POST", "/v1/devices/batch", json: ["devices": many])
            #expect(big.status == 200)
            #expect((big.object?["results"] as? [[String: Any]])?.count == 600)
            let tooMany = (0..<1001).map { Self.registration("x", Tokens.apns($0)) }
            #expect(try await server.request("POST", "/v1/devices/batch", json: ["devices": tooMany]).status == 422)
            #expect(try await server.request("POST", "/v1/devices/batch", json: ["devices": []]).status == 422)
            let huge = String(repeating: " ", count: 1024 * 1024 + 10)
            #expect(
                try await server.request("POST", "/v1/devices/batch", body: "{\"devices\":[]\(huge)}").status == 413)
        }
    }

    @Test func importAnswersEveryLineInOrder() async throws {
        try await withDeviceServer { server in
            _ = try await server.register(user: "old-owner", token: Tokens.apns(2))
            func line(_ object: [String: Any]) throws -> String {
                String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            }
            let lines = [
                try line(Self.registration("a", Tokens.apns(1))),
                "",
                "{not json",
                try line(Self.registration("b", Tokens.apns(2))),
                try line(Self.registration("c", Tokens.apns(3), provider: "nope")),
                try line(Self.registration("d", Tokens.apns(1))),  // the same token again, later: moves it
                try line(Self.registration("e", Tokens.fcm(4), provider: "ios", type: "fcm")),
                try line(Self.registration("f", "{length=32,bytes=0x…}")),
                "{\"user_id\":\"g\",\"provider\":\"ios\",\"type\":\"apns\",\"token\":\"\(Tokens.apns(5))\",\"x\":\"\(String(repeating: "y", count: 70_000))\"}",
                try line(Self.registration("h", Tokens.apns(6))),
            ]
            let response = try await server.request(
                "POST", "/v1/devices/import", body: lines.joined(separator: "\n"), contentType: "application/x-ndjson")
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/x-ndjson") == true)
            let results = response.body.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(results.map { $0["line"] as? Int } == [1, 3, 4, 5, 6, 7, 8, 9, 10])
            #expect(results.map { $0["status"] as? Int } == [201, 400, 200, 422, 200, 422, 422, 422, 201])
            #expect(
                results.map { $0["result"] as? String } == [
                    "created", nil, "moved", nil, "moved", nil, nil, nil, "created",
                ])
            #expect(
                Set(try await server.deviceRows().map { "\($0.user) \($0.token)" })
                    == ["d \(Tokens.apns(1))", "b \(Tokens.apns(2))", "h \(Tokens.apns(6))"])
            let form = try await server.request("POST", "/v1/devices/import", body: "x", contentType: "text/plain")
            #expect(form.status == 415)
        }
    }

    @Test func importAppliesATokenRepeatedAcrossBatchesInLineOrder() async throws {
        try await withDeviceServer { server in
            // The first batch starts with a token whose row another transaction holds for a while;
            // the second names the first one's new tokens again. Were it not made to wait, it
            // would commit them first and the first batch would then overwrite them.
            let held = Tokens.apns(99_999)
            _ = try await server.register(user: "z", token: held)
            let lock = try await HeldLock.hold(
                "SELECT 1 FROM devices WHERE token = '\(held)' FOR UPDATE", url: server.pool.configuration.url)
            // Then 2,000 new tokens: batches that share none and may commit side by side.
            let records =
                [("z2", held)] + (0..<999).map { ("a\($0)", Tokens.apns($0)) }
                + (0..<999).reversed().map { ("b\($0)", Tokens.apns($0)) }
                + (0..<2000).map { ("f\($0)", Tokens.apns(10_000 + $0)) }
            let body = try records.map { user, token in
                String(
                    decoding: try JSONSerialization.data(withJSONObject: Self.registration(user, token)), as: UTF8.self)
            }.joined(separator: "\n")
            let importing = Task {
                try await server.request("POST", "/v1/devices/import", body: body, contentType: "application/x-ndjson")
            }
            // Release the row only once the import waits on it, so the first batch is the one held.
            try await TestSupport.waitUntil("the import waits on the held row") {
                try await server.pool.withConnection { connection in
                    try connection.query(
                        "SELECT count(*) > 0 AS waiting FROM pg_locks WHERE NOT granted AND locktype IN ('transactionid', 'tuple')"
                    ).rows[0].bool("waiting")
                }
            }
            try await lock.release()
            let response = try await importing.value
            #expect(response.status == 200)
            let results = response.body.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(results.map { $0["line"] as? Int } == Array(1...records.count))
            #expect(results.allSatisfy { [200, 201].contains($0["status"] as? Int) })
            var lastOwner: [String: String] = [:]
            for (user, token) in records { lastOwner[token] = user }
            let rows = try await server.deviceRows()
            #expect(rows.count == lastOwner.count)
            #expect(rows.allSatisfy { lastOwner[$0.token] == $0.user })
        }
    }

    @Test func exportStreamsEveryDeviceAndImportsBackIntoAnotherRegistry() async throws {
        let exported = try await withDeviceServer { server in
            for start in stride(from: 0, to: 2_345, by: 500) {
                let items = (start..<min(start + 500, 2_345)).map {
                    Self.registration("user-\($0 % 97)", Tokens.apns(50_000 + $0))
                }
                #expect(try await server.request("POST", "/v1/devices/batch", json: ["devices": items]).status == 200)
            }
            _ = try await server.register(user: "android-user", token: Tokens.fcm(1), provider: "android", type: "fcm")
            let response = try await server.request("GET", "/v1/devices/export")
            #expect(response.status == 200)
            return response.body
        }
        let lines = exported.split(separator: "\n")
        #expect(lines.count == 2_346)
        let devices = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(devices.count == 2_346)
        #expect(Set(devices.compactMap { $0["token"] as? String }).count == 2_346)

        // What export writes, import reads as it is.
        let ndjson = exported
        try await withDeviceServer { server in
            let response = try await server.request(
                "POST", "/v1/devices/import", body: ndjson, contentType: "application/x-ndjson")
            #expect(response.status == 200)
            let statuses = response.body.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["status"] as? Int
            }
            #expect(statuses.count == 2_346 && statuses.allSatisfy { $0 == 201 })
            #expect(try await server.deviceRows().count == 2_346)
        }
    }
}
