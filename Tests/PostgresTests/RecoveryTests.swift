import Foundation
import NIOConcurrencyHelpers
import Postgres
import TestSupport
import Testing

/// Fault injection on private clusters. Serialized: several servers starting at once on two cores
/// would blur the timing bounds these tests check. The bounds are the behaviour promised (fail
/// within about a second, recover within about two) with room for a loaded machine.
@Suite(.serialized) struct RecoveryTests {
    @Test(arguments: ["fast", "immediate"])
    func recoversFromARestartWhileQueriesRun(mode: String) async throws {
        try await withCluster { cluster, pool in
            #expect(await pool.ping())
            let load = QueryLoop(pool: pool)
            try await TestSupport.waitUntil("the load running") { load.lastSuccess != nil }
            try await cluster.stop(mode: mode)
            // The cluster stays down until the load has failed a few times: an outage it saw.
            try await TestSupport.waitUntil("the load failing during the outage") { load.failures >= 3 }
            try await cluster.start()
            let back = ContinuousClock.now
            #expect(await eventually(within: .seconds(3)) { load.lastSuccess.map { $0 > back } ?? false })
            let outcomes = await load.stop()
            #expect(outcomes.contains { !$0.succeeded }, "the outage was noticed")
            let slowest = outcomes.filter { !$0.succeeded }.map(\.elapsed).max() ?? .zero
            #expect(slowest < .seconds(2), "failures during the outage are quick")
        }
    }

    @Test func terminatedIdleConnectionsAreReplacedUnnoticed() async throws {
        try await withCluster(PoolSettings(poolSize: 4)) { cluster, pool in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await pool.withConnection { _ = try $0.query("SELECT pg_sleep(0.05)") } }
                }
                try await group.waitForAll()
            }
            #expect(pool.statistics.idle == 4)
            let terminated = try await cluster.terminateAllBackends(applicationName: pool.configuration.applicationName)
            #expect(terminated == 4)
            for n in 0..<8 {
                #expect(
                    try await pool.withConnection { try $0.query("SELECT $1::int AS n", [n]).rows[0].int("n") } == n)
            }
        }
    }

    @Test func poolCreatedWhileTheServerIsDownRecoversByItself() async throws {
        try await withCluster { cluster, pool in
            try await cluster.stop()
            for _ in 0..<3 {
                let (elapsed, error) = await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }
                #expect(error as? PostgresError == .unavailable)
                #expect(elapsed < .seconds(2))
            }
            try await cluster.start()
            let back = ContinuousClock.now
            #expect(await eventually(within: .seconds(3)) { await pool.ping() })
            #expect(ContinuousClock.now - back < .seconds(3))
        }
    }

    @Test func frozenServerCostsABoundedWait() async throws {
        try await withCluster(PoolSettings(statementTimeout: .milliseconds(300))) { cluster, pool in
            #expect(await pool.ping())
            try cluster.pause()
            let (elapsed, error) = await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }
            try cluster.resume()
            #expect(error as? PostgresError == .connectionLost(outcomeUnknown: true))
            #expect(elapsed < .seconds(3))
            #expect(await eventually(within: .seconds(3)) { await pool.ping() })
        }
    }

    @Test func preflightRefusesFsyncOffUnlessAllowed() async throws {
        try await withCluster(serverOptions: ["fsync=off"]) { _, pool in
            await #expect(throws: PreflightError.unsafeDurability(setting: "fsync", value: "off")) {
                try await Preflight.check(pool, allowUnsafeDurability: false)
            }
            let info = try await Preflight.check(pool, allowUnsafeDurability: true)
            #expect(!info.fsync)
        }
    }
}

/// Queries in a loop until stopped, recording how each went.
private final class QueryLoop: Sendable {
    struct Outcome: Sendable {
        let succeeded: Bool
        let elapsed: Duration
    }

    private let outcomes = LockedOutcomes()
    private let task: Task<Void, Never>

    init(pool: PostgresPool) {
        let outcomes = self.outcomes
        task = Task {
            while !Task.isCancelled {
                let (elapsed, error) = await measure { try await pool.withConnection { _ = try $0.query("SELECT 1") } }
                outcomes.append(Outcome(succeeded: error == nil, elapsed: elapsed), at: .now)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    var lastSuccess: ContinuousClock.Instant? { outcomes.lastSuccess }
    var failures: Int { outcomes.failures }

    func stop() async -> [Outcome] {
        task.cancel()
        await task.value
        return outcomes.all
    }
}

private final class LockedOutcomes: Sendable {
    private let state = NIOLockedValueBox(
        (outcomes: [QueryLoop.Outcome](), lastSuccess: ContinuousClock.Instant?.none))

    func append(_ outcome: QueryLoop.Outcome, at instant: ContinuousClock.Instant) {
        state.withLockedValue { state in
            state.outcomes.append(outcome)
            if outcome.succeeded { state.lastSuccess = instant }
        }
    }

    var all: [QueryLoop.Outcome] { state.withLockedValue { $0.outcomes } }
    var lastSuccess: ContinuousClock.Instant? { state.withLockedValue { $0.lastSuccess } }
    var failures: Int { state.withLockedValue { $0.outcomes.count { !$0.succeeded } } }
}
