import Foundation
import Postgres
import RegistryCore
import TestSupport
import Testing

@testable import Store

/// Claims take a job's devices a batch at a time (migrations 0018, 0019): a batch whose lease ran
/// out is taken over with its devices not yet recorded, the claim that lost it records nothing, a
/// batch given back half sent is claimed again for the rest only, and every device is counted
/// once, also when its user was named twice.
@Suite("Push job batches")
struct PushJobBatchTests {
    @Test func leasesTakeoversAndPartialBatchesRecordEveryDeviceOnce() async throws {
        try await Self.withStore { store, pool in
            let job = try await Self.job(of: 10, in: store, pool)
            // A lease already over when it is granted: the next claim takes the batch over.
            let lost = try #require(try await store.claim(job: job, limit: 4, lease: .seconds(-1)))
            #expect(lost.deliveries.count == 4)
            let taker = try #require(try await store.claim(job: job, limit: 4, lease: .seconds(60)))
            #expect(taker.deliveries.map(\.deviceID) == lost.deliveries.map(\.deviceID))
            #expect(try await store.renew(lost, lease: .seconds(60)) == false, "the batch is no longer its")
            #expect(try await store.heldClaims(job: job) == 1)

            try await store.finish(lost, outcomes: lost.deliveries.map(Self.sent))
            #expect(try await Self.counts(job, store).pending == 10, "the claim that lost its batch recorded nothing")
            try await store.finish(taker, outcomes: taker.deliveries.prefix(2).map(Self.sent))
            #expect(try await Self.counts(job, store).sent == 2)
            #expect(try await store.heldClaims(job: job) == 0)

            // The batch given back half sent: its other two devices, before any new batch.
            let rest = try #require(try await store.claim(job: job, limit: 4, lease: .seconds(60)))
            #expect(rest.deliveries.map(\.deviceID) == taker.deliveries.suffix(2).map(\.deviceID))
            try await store.finish(rest, outcomes: rest.deliveries.map(Self.sent))
            var claimed = Set(lost.deliveries.map(\.deviceID))
            while let next = try await store.claim(job: job, limit: 4, lease: .seconds(60)), !next.deliveries.isEmpty {
                #expect(claimed.isDisjoint(with: next.deliveries.map(\.deviceID)))
                claimed.formUnion(next.deliveries.map(\.deviceID))
                try await store.finish(next, outcomes: next.deliveries.map(Self.sent))
            }
            #expect(claimed.count == 10)
            let done = try #require(try await store.job(id: job))
            #expect(done.status == .done && done.counts.sent == 10 && done.counts.pending == 0, "\(done)")
            #expect(try await store.claim(job: job, limit: 4, lease: .seconds(60)) == nil, "a done job is not live")
        }
    }

    @Test func aUserNamedTwiceHasItsDevicesSentAndCountedOnce() async throws {
        try await Self.withStore { store, pool in
            try await Self.devices(10, pool)
            let job = try await Self.receivingJob(store)
            #expect(
                try await store.addRecipients(
                    job: job, chunk: 0, users: Self.users(0..<6), types: nil, providers: nil, batchSize: 4)
                    == 6)
            // 4…7 again (4 and 5 repeated), then 4 and 5 only: a batch of repeats only.
            #expect(
                try await store.addRecipients(
                    job: job, chunk: 1, users: Self.users(4..<10), types: nil, providers: nil, batchSize: 4)
                    == 6)
            #expect(
                try await store.addRecipients(
                    job: job, chunk: 2, users: Self.users(4..<6), types: nil, providers: nil, batchSize: 4)
                    == 2)
            #expect(try await store.removeRepeatedRecipients(job: job) == 4)
            guard case .queued(let queued) = try await store.enqueue(job: job, maxQueued: 1000) else {
                throw TestFailure("the job was not queued")
            }
            #expect(queued.counts.total == 10 && queued.counts.pending == 10, "\(queued.counts)")
            var claimed: [Int64] = []
            while let next = try await store.claim(job: job, limit: 4, lease: .seconds(60)), !next.deliveries.isEmpty {
                claimed += next.deliveries.map(\.deviceID)
                try await store.finish(next, outcomes: next.deliveries.map(Self.sent))
            }
            #expect(claimed.count == 10 && Set(claimed).count == 10)
            let done = try #require(try await store.job(id: job))
            #expect(done.status == .done && done.counts.sent == 10, "\(done)")
        }
    }

    /// The intake adds a job's chunks of users several at a time: however their statements
    /// interleave, the batches are claimed in chunk order, and none collides with another's number.
    @Test func chunksAddedAtOnceAreClaimedInChunkOrder() async throws {
        try await Self.withStore { store, pool in
            try await Self.devices(12, pool)
            let job = try await Self.receivingJob(store)
            // The last chunk first, then the other two at once.
            #expect(
                try await store.addRecipients(
                    job: job, chunk: 2, users: Self.users(8..<12), types: nil, providers: nil, batchSize: 3)
                    == 4)
            let (firstUsers, secondUsers) = (try Self.users(0..<4), try Self.users(4..<8))
            async let first = store.addRecipients(
                job: job, chunk: 0, users: firstUsers, types: nil, providers: nil, batchSize: 3)
            async let second = store.addRecipients(
                job: job, chunk: 1, users: secondUsers, types: nil, providers: nil, batchSize: 3)
            #expect(try await (first, second) == (4, 4))
            guard case .queued = try await store.enqueue(job: job, maxQueued: 1000) else {
                throw TestFailure("the job was not queued")
            }
            var claimed: [String] = []
            while let next = try await store.claim(job: job, limit: 3, lease: .seconds(60)), !next.deliveries.isEmpty {
                claimed += try next.deliveries.map { try #require($0.device).userID.value }
                try await store.finish(next, outcomes: next.deliveries.map(Self.sent))
            }
            #expect(claimed == (0..<12).map { "batch-\($0)" })
        }
    }

    /// Claims hold the job row `FOR KEY SHARE`: a claim goes on beside an outcome write in
    /// progress (which updates the row's counters), and a cancel still waits for a claim in
    /// progress and is seen by every claim after it. The first claim marks the job running.
    @Test func aClaimDoesNotWaitForAnOutcomeWriteInProgress() async throws {
        try await Self.withStore { store, pool in
            let job = try await Self.job(of: 10, in: store, pool)
            let first = try #require(try await store.claim(job: job, limit: 4, lease: .seconds(60)))
            let running = try #require(try await store.job(id: job))
            #expect(running.status == .running && running.startedAt != nil, "\(running)")

            let holding = try await Self.holdJobRow(
                job, pool, "UPDATE push_jobs SET sent = sent WHERE id = $1", gate: "outcome-write")
            let next = try #require(try await store.claim(job: job, limit: 4, lease: .seconds(60)))
            #expect(next.deliveries.count == 4)
            #expect(Set(next.deliveries.map(\.deviceID)).isDisjoint(with: first.deliveries.map(\.deviceID)))

            try await holding.open()
        }
    }

    @Test func aCancelWaitsForAClaimInProgressAndLaterClaimsSeeIt() async throws {
        try await Self.withStore { store, pool in
            let job = try await Self.job(of: 10, in: store, pool)
            let holding = try await Self.holdJobRow(
                job, pool, "SELECT FROM push_jobs WHERE id = $1 FOR KEY SHARE", gate: "claim")

            let cancel = Task { try await store.cancel(id: job) }
            try await TestSupport.waitUntil("the cancel waits for the claim in progress") {
                try await holding.gate.pool.withConnection {
                    try $0.query(
                        """
                        SELECT count(*) AS n FROM pg_stat_activity
                         WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE push_jobs SET status = ''cancelled''%'
                        """
                    ).rows[0]["n"] == "1"
                }
            }

            try await holding.open()
            #expect(try await cancel.value?.status == .cancelled)
            let after = try await store.claim(job: job, limit: 4, lease: .seconds(60))
            #expect(after == nil, "a cancelled job is not live")
        }
    }

    /// A transaction on a connection of `pool` that ran `statement` on `job`'s row and then waits,
    /// holding its lock, until `open()`.
    struct HeldJobRow {
        let gate: Gate
        let transaction: Task<Void, any Error>

        func open() async throws {
            try await gate.open()
            try await transaction.value
        }
    }

    static func holdJobRow(_ job: String, _ pool: PostgresPool, _ statement: String, gate key: String) async throws
        -> HeldJobRow
    {
        let gate = try await Gate.close(pool, key: key)
        let transaction = Task {
            try await pool.withConnection { connection in
                try connection.transaction { connection in
                    _ = try connection.query(statement, [job])
                    _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [key])
                }
            }
        }
        try await TestSupport.waitUntil("the transaction holds the job row") {
            try await gate.pool.withConnection {
                try $0.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                    .rows[0]["n"] == "1"
            }
        }
        return HeldJobRow(gate: gate, transaction: transaction)
    }

    /// A worker's writes commit without waiting for the WAL flush, for their own transaction only:
    /// the connection goes back to the pool with a durable commit for whoever uses it next (a
    /// ring's claim). Why a lost worker write is safe: `PushJobStore.commitsWithoutWaitingForFlush`.
    @Test func aWorkersWriteCommitsWithoutWaitingForTheFlushAndNothingElseDoes() async throws {
        try await Self.withStore { _, pool in
            try await pool.withConnection { connection in
                let inside = try connection.transaction { connection in
                    try connection.query(
                        "SELECT \(PushJobStore.commitsWithoutWaitingForFlush) AS holds,"
                            + " current_setting('synchronous_commit') AS setting"
                    ).rows[0]
                }
                #expect(try inside.bool("holds") && inside.string("setting") == "off")
                let after = try connection.query("SELECT current_setting('synchronous_commit') AS setting").rows[0]
                #expect(try after.string("setting") == "on")
            }
        }
    }

    /// `body` with a job store on a database of its own, dropped afterwards whatever `body` did.
    static func withStore(_ body: (PushJobStore, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withPool("batches") {
            $0.poolSize = 2
            // A statement that waits for a lock it should not need fails the test instead of hanging it.
            $0.statementTimeout = .seconds(20)
        } _: { pool in
            try await body(PushJobStore(pool: pool), pool)
        }
    }

    /// Users `batch-0…` with one FCM device each.
    static func devices(_ count: Int, _ pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO providers (name, service, project_id) VALUES ('android', 'fcm', 'batches');
                INSERT INTO devices (provider, token, type, user_id, created_at, updated_at, last_seen_at)
                SELECT 'android', 'fcm-token:' || i, 'fcm', 'batch-' || i, now(), now(), now()
                  FROM generate_series(0, \(count - 1)) AS i
                """)
        }
    }

    /// A queued job for `devices` users with one device each, in batches of 4.
    static func job(of devices: Int, in store: PushJobStore, _ pool: PostgresPool) async throws -> String {
        try await Self.devices(devices, pool)
        let job = try await receivingJob(store)
        #expect(
            try await store.addRecipients(
                job: job, chunk: 0, users: users(0..<devices), types: nil, providers: nil, batchSize: 4)
                == devices)
        guard case .queued = try await store.enqueue(job: job, maxQueued: 1000) else {
            throw TestFailure("the job was not queued")
        }
        return job
    }

    /// A push job still receiving its users, due in an hour.
    static func receivingJob(_ store: PushJobStore) async throws -> String {
        try await store.begin(kind: "push", payload: "{}", deadline: Date().addingTimeInterval(3600))
    }

    /// The ids of the users `devices` made, `batch-<n>` for each n in `range`.
    static func users(_ range: Range<Int>) throws -> [UserID] {
        try range.map { try UserID("batch-\($0)") }
    }

    static func sent(_ delivery: PushJobClaim.Delivery) -> PushResultRecord {
        PushResultRecord(deviceID: delivery.deviceID, status: "sent", reason: nil, serviceID: "id-\(delivery.deviceID)")
    }

    static func counts(_ job: String, _ store: PushJobStore) async throws -> PushJob.Counts {
        try #require(try await store.job(id: job)).counts
    }
}
