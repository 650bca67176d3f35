import Foundation
import TestSupport
import Testing

@Suite("Registrations racing")
struct ConcurrencyTests {
    @Test func fiftyUsersRegisteringOneTokenLeaveOneRowAndOneCreated() async throws {
        var options = TestServer.Options()
        options.postgres = { $0.poolSize = 10 }
        try await withDeviceServer(options) { server in
            let token = Tokens.apns(42)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for user in 0..<50 {
                    group.addTask { try await server.register(user: "user-\(user)", token: token).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { (200..<300).contains($0) }, "statuses: \(statuses)")
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(try await server.deviceRows().count == 1)
        }
    }

    @Test func twoUsersRacingForATokenAThousandTimesLeaveOneOwnerEach() async throws {
        var options = TestServer.Options()
        options.postgres = { $0.poolSize = 8 }
        options.userDeviceCap = 5000  // the cap is not what this test is about
        try await withDeviceServer(options) { server in
            let rounds = 1000
            for chunk in stride(from: 0, to: rounds, by: 25) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for round in chunk..<chunk + 25 {
                        for user in ["racer-a", "racer-b"] {
                            group.addTask {
                                let status = try await server.register(user: user, token: Tokens.apns(10_000 + round))
                                    .status
                                if !(200..<300).contains(status) { throw TestFailure("round \(round): \(status)") }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let rows = try await server.deviceRows()
            #expect(rows.count == rounds)
            #expect(Set(rows.map(\.token)).count == rounds)
            #expect(rows.allSatisfy { ["racer-a", "racer-b"].contains($0.user) })
        }
    }
}
