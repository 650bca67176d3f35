import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// Call-event idempotency across `serve` processes on one database: the same event posted to
/// two instances at once pushes once.
@Suite("Call events across instances")
struct MultiInstanceCallEventTests {
    @Test func theSameEventPostedToTwoInstancesAtOncePushesOnce() async throws {
        let mock = try await MockPushFixture.start()
        let environment = [
            "PUSH_CA_FILE": mock.certificates.caFile, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url,
        ]
        let outcome = await Result.of {
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
                let registered = try await instances.request(
                    1, "POST", "/v1/devices",
                    json: ["user_id": "artem", "provider": "ios", "type": "voip", "token": Tokens.apns(1)])
                #expect(registered.status == 201)
                for round in 0..<5 {
                    // A slow APNs answer keeps the first post running while the others arrive.
                    mock.server.script(MockReply(service: .apns, delayMilliseconds: 200))
                    let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                        for instance in 0..<3 {
                            group.addTask {
                                try await instances.request(
                                    instance, "POST", "/v1/call-events", json: CallEvents.body("evt_shared_\(round)"))
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(answers.map(\.status) == [200, 200, 200], "\(answers.map(\.body))")
                    let duplicates = answers.map { $0.object?["duplicate"] as? Bool }
                    #expect(duplicates.filter { $0 == false }.count == 1, "\(duplicates)")
                    #expect(duplicates.filter { $0 == true }.count == 2, "\(duplicates)")
                    let statuses = answers.map {
                        ($0.object?["results"] as? [[String: Any]])?.first?["status"] as? String
                    }
                    #expect(statuses == ["sent", "sent", "sent"])
                }
                #expect(CallEvents.pushes(mock).count == 5)
                // Between them, the instances counted five first posts and ten duplicates.
                var counted: [String: Int] = [:]
                for instance in 0..<3 {
                    let metrics = try await instances.request(instance, "GET", "/metrics").body
                    for line in metrics.split(separator: "\n") where line.hasPrefix("call_events_total{") {
                        let outcome =
                            line.contains(#"outcome="sent""#) ? "sent" : line.contains("duplicate") ? "dup" : "?"
                        counted[outcome, default: 0] += Int(line.split(separator: " ").last ?? "") ?? 0
                    }
                }
                #expect(counted == ["sent": 5, "dup": 10], "\(counted)")
            }
        }
        try await mock.stop()
        try outcome.get()
    }
}
