import Foundation
import TestSupport
import Testing

/// The concurrency cases across three `serve` processes on one database, each compared with the
/// same run against one process: requests are spread round-robin over the instances, and what
/// the clients see and what the table holds must be the same. (The APNs provider token shared
/// across instances comes with the push sender; call-event idempotency across instances is in
/// MultiInstanceCallEventTests.)
@Suite("Several instances on one database")
struct MultiInstanceTests {
    static let cap = 5

    /// Runs `scenario` on three instances and on one, each on a database of its own; returns both
    /// outcomes.
    static func acrossInstances<Outcome: Sendable>(
        _ scenario: @escaping @Sendable (RegistryInstances) async throws -> Outcome
    ) async throws -> (three: Outcome, one: Outcome) {
        let environment = ["USER_DEVICE_CAP": "\(cap)"]
        async let three = withRegistryInstances(3, environment: environment) { try await scenario($0) }
        async let one = withRegistryInstances(1, environment: environment) { try await scenario($0) }
        return try await (three, one)
    }

    struct OneTokenFiftyUsers: Equatable {
        var statuses: [Int: Int]
        var rows: Int
        var ownerListsIt: Bool
    }

    @Test func fiftyUsersRegisteringOneTokenLeaveOneRowAndOneOwner() async throws {
        let outcomes = try await Self.acrossInstances { instances in
            let token = Tokens.apns(42)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for user in 0..<50 {
                    group.addTask { try await instances.register(user, user: "user-\(user)", token: token).status }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            let rows = try await instances.rows()
            let owner = rows.first?.user ?? ""
            let listed = try await instances.request(1, "GET", "/v1/users/\(owner)/devices").body
            return OneTokenFiftyUsers(statuses: statuses, rows: rows.count, ownerListsIt: listed.contains(token))
        }
        #expect(outcomes.one == OneTokenFiftyUsers(statuses: [201: 1, 200: 49], rows: 1, ownerListsIt: true))
        #expect(outcomes.three == outcomes.one)
    }

    struct MoveAndLogout: Equatable {
        var statuses: Set<Int>
        var ownedByNewUser: Int
        var rows: Int
    }

    /// A phone changes hands while its previous user's logout arrives through another instance:
    /// whichever runs first, the new user keeps the token.
    @Test func aLateLogoutNeverRemovesTheNextUsersPhone() async throws {
        let rounds = 20
        let outcomes = try await Self.acrossInstances { instances in
            var statuses = Set<Int>()
            for round in 0..<rounds {
                let token = Tokens.apns(1_000 + round)
                statuses.insert(try await instances.register(round, user: "old-\(round)", token: token).status)
                async let moved = instances.register(round + 1, user: "new-\(round)", token: token)
                async let loggedOut = instances.request(
                    round + 2, "DELETE", "/v1/users/old-\(round)/devices/\(token)?provider=ios")
                statuses.insert(try await moved.status)
                statuses.insert(try await loggedOut.status)
            }
            let rows = try await instances.rows()
            return MoveAndLogout(
                statuses: statuses, ownedByNewUser: rows.count { $0.user.hasPrefix("new-") }, rows: rows.count)
        }
        #expect(outcomes.one.ownedByNewUser == rounds && outcomes.one.rows == rounds)
        #expect(outcomes.one.statuses.isSubset(of: [200, 201, 204]))
        #expect(outcomes.three.ownedByNewUser == outcomes.one.ownedByNewUser)
        #expect(outcomes.three.rows == outcomes.one.rows)
        #expect(outcomes.three.statuses.isSubset(of: [200, 201, 204]))
    }

    struct Capped: Equatable {
        var allSucceeded: Bool
        var evicted: Int
        var listed: Int
    }

    @Test func thePerUserCapHoldsWhateverInstanceRegisters() async throws {
        let registrations = 30
        let outcomes = try await Self.acrossInstances { instances in
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for seed in 0..<registrations {
                    group.addTask {
                        try await instances.register(seed, user: "capped", token: Tokens.apns(2_000 + seed))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let evicted = answers.reduce(0) { $0 + (($1.object?["evicted_tokens"] as? [Any])?.count ?? 0) }
            let listed = try await instances.request(2, "GET", "/v1/users/capped/devices").object?["devices"] as? [Any]
            return Capped(
                allSucceeded: answers.allSatisfy { (200..<300).contains($0.status) }, evicted: evicted,
                listed: listed?.count ?? -1)
        }
        #expect(outcomes.one == Capped(allSucceeded: true, evicted: registrations - Self.cap, listed: Self.cap))
        #expect(outcomes.three == outcomes.one)
    }

    /// Each instance caches live keys; a revocation through one reaches every other one's cache
    /// (LISTEN/NOTIFY) within a second.
    @Test func aRevokedKeyIsRefusedByEveryInstanceWithinASecond() async throws {
        try await withRegistryInstances(3) { instances in
            let created = try await instances.request(
                0, "POST", "/v1/keys", json: ["name": "backend", "scopes": ["devices:read"]])
            let secret = try #require(created.object?["secret"] as? String)
            let id = try #require((created.object?["key"] as? [String: Any])?["id"] as? String)
            for instance in 0..<3 {
                for _ in 0..<2 {  // the second answer comes from the instance's cache
                    #expect(
                        try await instances.request(instance, "GET", "/v1/users/u/devices", key: secret).status == 200)
                }
            }
            #expect(try await instances.request(0, "DELETE", "/v1/keys/\(id)").status == 204)
            let revoked = ContinuousClock.now
            let refusedAfter = try await withThrowingTaskGroup(of: Duration?.self) { group in
                for instance in 0..<3 {
                    group.addTask {
                        while ContinuousClock.now - revoked < .seconds(1) {
                            let status = try await instances.request(
                                instance, "GET", "/v1/users/u/devices", key: secret
                            )
                            .status
                            if status == 401 { return ContinuousClock.now - revoked }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        return nil
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(refusedAfter.count == 3 && refusedAfter.allSatisfy { $0 != nil }, "\(refusedAfter)")
        }
    }
}
