import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// Three `serve` processes on one database sending to one mock APNs share one provider token:
/// one signing per key and renewal window across the instances, not one each (Apple answers
/// `TooManyProviderTokenUpdates` to the second), and one renewal when APNs says it expired.
@Suite("APNs provider token shared across instances")
struct SharedProviderTokenTests {
    static let renewals = "push_provider_token_renewals_total"
    static let adopted = "push_provider_tokens_adopted_total"

    /// Each instance's count of `metric` for the mock's key.
    static func counts(_ metric: String, _ instances: RegistryInstances, keyID: String) async throws -> [Double] {
        var counts: [Double] = []
        for port in instances.ports {
            let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
            counts.append(samples["\(metric){key_id=\"\(keyID)\"}"] ?? 0)
        }
        return counts
    }

    /// `POST /v1/push` of a VoIP notification to `user` through `instance`; each result's status.
    static func push(_ instances: RegistryInstances, _ instance: Int, user: String) async throws -> [String] {
        let response = try await instances.request(
            instance, "POST", "/v1/push",
            json: ["user_ids": [user], "apns": ["push_type": "voip", "payload": ["aps": [:]]], "deadline": "10s"])
        guard response.status == 200, let results = response.object?["results"] as? [[String: Any]] else {
            throw TestFailure("push answered \(response.status): \(response.body)")
        }
        return results.map { $0["status"] as? String ?? "" }
    }

    @Test func threeInstancesSignOneTokenAndRenewAnExpiredOneOnce() async throws {
        let mock = try await MockPushFixture.start()
        let environment = [
            "PUSH_CA_FILE": mock.certificates.caFile, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url,
        ]
        let result = await Result.of {
            try await withRegistryInstances(3, environment: environment) { instances in
                let put = try await instances.request(
                    0, "PUT", "/v1/providers/ios",
                    json: [
                        "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                        "credentials": [
                            "team_id": mock.teamID, "key_id": mock.keyID, "private_key": try mock.apnsKey.pkcs8PEM(),
                        ],
                    ])
                #expect(put.status == 200, "\(put.body)")
                for instance in 0..<3 {
                    let registered = try await instances.request(
                        instance, "POST", "/v1/devices",
                        json: [
                            "user_id": "user-\(instance)", "provider": "ios", "type": "voip",
                            "token": Tokens.apns(instance),
                        ])
                    #expect(registered.status == 201, "\(registered.body)")
                }

                // Every instance pushes at once: one signs, the others take its token.
                let first = try await withThrowingTaskGroup(of: [String].self) { group in
                    for instance in 0..<3 {
                        group.addTask { try await Self.push(instances, instance, user: "user-\(instance)") }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(first == ["sent", "sent", "sent"])
                let credentials = Set(
                    mock.server.recordedRequests.filter { $0.endpoint == .apns }.compactMap(\.credential))
                #expect(credentials.count == 1, "\(credentials)")
                #expect(try await Self.counts(Self.renewals, instances, keyID: mock.keyID).reduce(0, +) == 1)
                #expect(try await Self.counts(Self.adopted, instances, keyID: mock.keyID).reduce(0, +) == 2)

                // APNs holds each instance's next push, then answers that the token expired: all
                // three report it, one renews, and the other two adopt the renewed token.
                for instance in 0..<3 {
                    mock.server.script(
                        MockReply(
                            service: .apns, token: Tokens.apns(instance), status: 403,
                            reason: "ExpiredProviderToken", delayMilliseconds: 1_000))
                }
                let second = try await withThrowingTaskGroup(of: [String].self) { group in
                    for instance in 0..<3 {
                        group.addTask { try await Self.push(instances, instance, user: "user-\(instance)") }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(second == ["sent", "sent", "sent"])
                #expect(try await Self.counts(Self.renewals, instances, keyID: mock.keyID).reduce(0, +) == 2)
                #expect(mock.server.statistics.providerTokensAccepted <= 2)
                let rows = try await instances.pool.withConnection { connection in
                    try connection.query("SELECT count(*) AS n FROM apns_provider_tokens").rows.first?.int("n")
                }
                #expect(rows == 1)
            }
        }
        try await mock.stop()
        try result.get()
    }
}
