import Foundation
import NIOConcurrencyHelpers
import Postgres
import RegistryCore
import TestSupport
import Testing

@testable import Store

/// Group commit must be invisible: writes that share a transaction end exactly as they would one
/// after the other in arrival order — each its own outcome, the same final table.
@Suite("Group commit")
struct GroupCommitTests {
    /// The writes a test batch is made of: `preload` runs first, one by one, then `operations`.
    enum Mix: String, CaseIterable, Sendable {
        /// Registrations with device ids (so rotations happen) and logouts over three users and
        /// four tokens: moves, rotations, late logouts and evictions, all through register_device().
        case rotations
        /// Mostly registrations without device ids, each token by its own user, many of them alone
        /// in the batch: the set-based path of register_devices() (created, unchanged, updated)
        /// beside unknown providers, rotations, moves, repeats, evictions and logouts.
        case common

        func writes(cap: Int) throws -> (preload: [WriteOperation], operations: [WriteOperation]) {
            switch self {
            case .rotations: ([], try GroupCommitTests.rotations(count: 40, cap: cap))
            case .common: try GroupCommitTests.commonMix(count: 60, cap: cap)
            }
        }
    }

    static func rotations(count: Int, cap: Int) throws -> [WriteOperation] {
        var generator = SeededGenerator(seed: 7)
        let users = try ["ann", "ben", "cat"].map { try UserID($0) }
        let tokens = try (0..<4).map { try PushToken(type: .apns, raw: String(format: "%064x", $0 + 1)) }
        let provider = try ProviderName("ios")
        return try (0..<count).map { _ in
            let user = users[Int(generator.next() % 3)]
            let token = tokens[Int(generator.next() % 4)]
            if generator.next() % 4 == 0 {
                return .unregister(user: user, token: token.value, provider: nil)
            }
            let installation = try DeviceID("install-\(generator.next() % 3)")
            return .register(
                try DeviceRegistration(userID: user, provider: provider, token: token, deviceID: installation),
                userDeviceCap: cap)
        }
    }

    static func commonMix(count: Int, cap: Int) throws -> (preload: [WriteOperation], operations: [WriteOperation]) {
        var generator = SeededGenerator(seed: 11)
        let users = try (0..<80).map { try UserID("user-\($0)") }
        let tokens = try (0..<80).map { try PushToken(type: .apns, raw: String(format: "%064x", $0 + 100)) }
        let ios = try ProviderName("ios")
        // Token k belongs to user k; the first half exist before the batch.
        let preload = try (0..<40).map { k in
            WriteOperation.register(
                try DeviceRegistration(userID: users[k], provider: ios, token: tokens[k]), userDeviceCap: cap)
        }
        let operations = try (0..<count).map { _ -> WriteOperation in
            let k = Int(generator.next() % 80)
            let other = users[Int(generator.next() % 80)]
            switch generator.next() % 10 {
            case 0: return .unregister(user: users[k], token: tokens[k].value, provider: nil)
            case 1:
                return .register(
                    try DeviceRegistration(userID: users[k], provider: ProviderName("nope"), token: tokens[k]),
                    userDeviceCap: cap)
            case 2:
                return .register(
                    try DeviceRegistration(
                        userID: other, provider: ios, token: tokens[k], deviceID: DeviceID("install-\(k % 4)")),
                    userDeviceCap: cap)
            case 3:
                return .register(
                    try DeviceRegistration(userID: other, provider: ios, token: tokens[k]), userDeviceCap: cap)
            default:
                let environment: APNsEnvironment = generator.next() % 3 == 0 ? .sandbox : .production
                return .register(
                    try DeviceRegistration(userID: users[k], provider: ios, token: tokens[k], environment: environment),
                    userDeviceCap: cap)
            }
        }
        return (preload, operations)
    }

    static func summary(_ outcome: Result<WriteOutcome, any Error>) -> String {
        switch outcome {
        case .success(.registered(let r)):
            "\(r.result.rawValue) prev=\(r.previousUserID?.value ?? "-") replaced=\(r.replacedTokens) evicted=\(r.evictedTokens)"
        case .success(.unregistered(let deleted)): "unregistered=\(deleted)"
        case .success(.callEvent): "call event"
        case .failure(let error): "error \(error)"
        }
    }

    static func table(_ pool: PostgresPool) async throws -> [String] {
        try await pool.withConnection { connection in
            try connection.query("SELECT token, user_id, device_id, environment FROM devices ORDER BY token").rows.map {
                "\($0["token"] ?? "") \($0["user_id"] ?? "") \($0["device_id"] ?? "") \($0["environment"] ?? "")"
            }
        }
    }

    static func withPool<T>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        try await TestDatabase.withPool("group-commit") {
            $0.poolSize = 3
            // Requests wait behind a gated runner for as long as a loaded machine takes to line them up.
            $0.poolWaitTimeout = .seconds(10)
        } _: { pool in
            _ = try await pool.withConnection {
                try $0.query("INSERT INTO providers (name, service, topic) VALUES ('ios', 'apns', 'com.example.app')")
            }
            return try await body(pool)
        }
    }

    static func runOneByOne(_ operations: [WriteOperation], on pool: PostgresPool) async -> [String] {
        var outcomes: [String] = []
        for operation in operations {
            outcomes.append(
                Self.summary(await Result.of { try await pool.withConnection { try operation.run(on: $0) } }))
        }
        return outcomes
    }

    @Test(arguments: Mix.allCases)
    func aBatchEndsAsTheSameWritesOneAfterAnotherInArrivalOrder(mix: Mix) async throws {
        let (preload, operations) = try mix.writes(cap: 3)

        let (serialOutcomes, serialTable) = try await Self.withPool { pool in
            _ = await Self.runOneByOne(preload, on: pool)
            return (await Self.runOneByOne(operations, on: pool), try await Self.table(pool))
        }

        let (batchedOutcomes, batchedTable, batchSizes) = try await Self.withPool { pool in
            _ = await Self.runOneByOne(preload, on: pool)
            let sizes = BatchSizes()
            let committer = GroupCommitter.make(pool: pool, maxRunners: 1, metrics: BatchMetrics(size: sizes.record))
            // Hold the one runner on a lock so that every operation queues behind it, in order.
            let blocker = try WriteOperation.register(
                DeviceRegistration(
                    userID: UserID("blocker"), provider: ProviderName("ios"),
                    token: PushToken(type: .apns, raw: String(repeating: "f", count: 64))),
                userDeviceCap: 3)
            let gate = try await Gate.close(pool, key: "blocker")
            let first = Task { try await committer.submit(blocker) }
            try await TestSupport.waitUntil("the runner took the blocker") { sizes.all == [1] }
            var tasks: [Task<WriteOutcome, any Error>] = []
            for operation in operations {
                tasks.append(Task { try await committer.submit(operation) })
                // A definite arrival order: each is queued before the next is submitted.
                try await TestSupport.waitUntil("operation \(tasks.count) queued") { committer.waiting == tasks.count }
            }
            try await gate.open()
            _ = try await first.value
            var outcomes: [String] = []
            for task in tasks { outcomes.append(Self.summary(await task.result)) }
            return (outcomes, try await Self.table(pool).filter { !$0.hasPrefix("ffff") }, sizes.all)
        }

        #expect(batchSizes.contains(operations.count), "the writes did share one batch: \(batchSizes)")
        #expect(batchedOutcomes == serialOutcomes)
        #expect(batchedTable == serialTable)
    }

    @Test func theNextBatchIsSentBeforeTheBatchBeforeIsAnswered() async throws {
        try await Self.withPool { pool in
            let sizes = BatchSizes()
            let committer = GroupCommitter.make(pool: pool, maxRunners: 1, metrics: BatchMetrics(size: sizes.record))
            let register = { (user: String, token: Int) throws -> WriteOperation in
                .register(
                    try DeviceRegistration(
                        userID: UserID(user), provider: ProviderName("ios"),
                        token: PushToken(type: .apns, raw: String(format: "%064x", token))),
                    userDeviceCap: 3)
            }
            let gate = try await Gate.close(pool, key: "blocker")
            // Answered on the runner's thread: what is still queued when the first batch is answered.
            let waitingWhenAnswered = NIOLockedValueBox<[Int]>([])
            let answered = NIOLockedValueBox<Result<WriteOutcome, any Error>?>(nil)
            committer.submit(try register("blocker", 1)) { outcome in
                waitingWhenAnswered.withLockedValue { $0.append(committer.waiting) }
                answered.withLockedValue { $0 = outcome }
            }
            try await TestSupport.waitUntil("the runner sent the blocker") { sizes.all == [1] }
            let queued = try [("ann", 2), ("ben", 3)].map { user, token in
                let operation = try register(user, token)
                return Task { try await committer.submit(operation) }
            }
            try await TestSupport.waitUntil("two queued behind it") { committer.waiting == 2 }
            try await gate.open()
            for task in queued { #expect(try await task.value.registration.result == .created) }
            #expect(sizes.all == [1, 2])
            #expect(waitingWhenAnswered.withLockedValue { $0 } == [0], "the two were taken (and sent) first")
            #expect(try answered.withLockedValue { $0 }?.get().registration.result == .created)
            #expect(try await Self.table(pool).count == 3)
        }
    }
}

/// Deterministic pseudo-random numbers (SplitMix64), so the operation mix is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Batch sizes a committer reports.
final class BatchSizes: Sendable {
    private let sizes = NIOLockedValueBox<[Int]>([])
    func record(_ size: Int) { sizes.withLockedValue { $0.append(size) } }
    var all: [Int] { sizes.withLockedValue { $0 } }
}
