import TestSupport
import Testing

@testable import Postgres

/// Which server a read goes to, from the positions alone (no database: the pools never connect).
@Suite struct ReadRoutingTests {
    static func replica() -> ReadReplica {
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none", poolSize: 1),
            logger: TestSupport.logger("routing"))
        return ReadReplica(primary: pool, replica: pool, maxLag: .seconds(60), logger: TestSupport.logger("routing"))
    }

    @Test func aReadWaitsForItsKeysWritesItsTokenAndTheFloorOnly() {
        let routing = Self.replica()
        #expect(!routing.usesReplica(strong: false, key: "user:a"), "no replica answer yet")
        _ = routing.record(primaryAt: 1_000, notedAt: .now, replayed: 1_000)
        #expect(routing.usesReplica(strong: false, key: "user:a"))
        #expect(!routing.usesReplica(strong: true, key: "user:a"))

        routing.note(WALPosition(bytes: 2_000), keys: ["user:a", "token:x"])
        #expect(!routing.usesReplica(strong: false, key: "user:a"), "its own write is not replayed yet")
        #expect(!routing.usesReplica(strong: false, key: "token:x"))
        #expect(routing.usesReplica(strong: false, key: "user:b"), "another user's write does not count")
        #expect(!routing.usesReplica(strong: false, key: nil), "a read of every key waits for every write")
        #expect(!routing.usesReplica(strong: false, key: "user:b", after: WALPosition(bytes: 1_500)))
        #expect(routing.latestCommit == WALPosition(bytes: 2_000))

        _ = routing.record(primaryAt: 2_500, notedAt: .now, replayed: 2_000)
        #expect(routing.usesReplica(strong: false, key: "user:a"), "replayed")
        #expect(routing.usesReplica(strong: false, key: nil))
        #expect(routing.usesReplica(strong: false, key: "user:b", after: WALPosition(bytes: 1_500)))

        routing.note(WALPosition(bytes: 3_000), keys: nil)
        #expect(!routing.usesReplica(strong: false, key: "user:b"), "a write of unknown keys counts for all")
    }

    @Test func aReplicaThatComesBackBehindWhatItHadReplayedIsNotUsed() {
        let routing = Self.replica()
        _ = routing.record(primaryAt: 5_000, notedAt: .now, replayed: 5_000)
        routing.note(WALPosition(bytes: 4_000), keys: ["user:a"])
        _ = routing.record(primaryAt: 5_000, notedAt: .now, replayed: 4_500)
        #expect(!routing.usesReplica(strong: false, key: "user:a"), "behind what was already forgotten")
        _ = routing.record(primaryAt: 5_000, notedAt: .now, replayed: nil)
        #expect(!routing.usesReplica(strong: false, key: "user:z"), "down")
    }

    @Test func tooManyKeysAreForgottenForTheLatestWrite() {
        let routing = Self.replica()
        _ = routing.record(primaryAt: 1, notedAt: .now, replayed: 1)
        for user in 0...ReadReplica.maxTrackedKeys {
            routing.note(WALPosition(bytes: UInt64(10 + user)), keys: ["user:\(user)"])
        }
        #expect(!routing.usesReplica(strong: false, key: "user:unwritten"))
        _ = routing.record(primaryAt: 200_000, notedAt: .now, replayed: 200_000)
        #expect(routing.usesReplica(strong: false, key: "user:unwritten"))
    }
}
