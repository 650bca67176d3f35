import Logging
import Metrics
import NIOConcurrencyHelpers

/// Sends a read to a streaming replica when the replica has provably replayed every write the
/// read must see, is up and is not too far behind; to the primary otherwise. A read never fails
/// because the replica is gone: `read` runs it again on the primary.
///
/// What a read must see is a WAL position (`WALPosition`), the largest of:
/// - the consistency token its client sent back (`after`): the position a write answered with,
///   on whichever instance it ran, so a client reads its own writes across instances;
/// - this process's latest commit that wrote the read's key (a user, a token), noted by
///   `noteCommit` with the primary's insert position taken after the commit returned, so reads
///   on this instance see its own writes without a token, while writes to other keys leave them
///   on the replica; a read that spans every key (the admin listing) waits for every commit;
/// - `floor`: writes that touch keys unknown here (a provider's cascade, a prune), and the
///   positions the replica had already replayed when their keys were forgotten.
/// The replica's replay position comes from `run()`, which polls it every `pollEvery`; replay
/// only moves forward, so a read decided on a polled position asks nothing the replica lacks
/// (and one that restarts further behind is not used until it has passed `floor` again).
///
/// The lag (how long ago the primary was at the replayed position, from its insert positions
/// noted at each poll) bounds what reads of keys nobody wrote through this instance may miss.
public final class ReadReplica: Sendable {
    /// Keys noted since their position was replayed are forgotten at each poll; past this many
    /// (a replica that is down while writes go on) all are, and `floor` takes their place.
    static let maxTrackedKeys = 100_000

    private struct State {
        /// Primary WAL positions and when they were noted, oldest first.
        var samples: [(at: ContinuousClock.Instant, lsn: Int64)] = []
        /// Nil while the replica does not answer (or is no replica).
        var replayedAsOf: ContinuousClock.Instant?
        /// How far the replica had replayed at the last poll; nil while it does not answer.
        var replayed: WALPosition?
        /// Per key (hashed; a collision only sends a read to the primary), the position after
        /// this process's latest commit that wrote it, until the replica has replayed it.
        var commits: [Int: WALPosition] = [:]
        /// Every read must wait for this.
        var floor = WALPosition.zero
        /// This process's latest commit.
        var latest = WALPosition.zero

        /// What a read of `key` (nil: every key) after `token` must wait for.
        func required(key: String?, after token: WALPosition?) -> WALPosition {
            let written = key.map { commits[$0.hashValue] ?? .zero } ?? latest
            return max(floor, written, token ?? .zero)
        }
    }

    public let primary: PostgresPool
    public let replica: PostgresPool
    /// A replica further behind than this is skipped.
    public let maxLag: Duration
    let pollEvery: Duration
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    /// Recorded only while the replica answers; `db_replica_up` says whether it does.
    private let lag = Gauge(label: "db_replica_lag_seconds")
    private let up = Gauge(label: "db_replica_up")
    private let replicaReads = Counter(label: "db_reads_total", dimensions: [("server", "replica")])
    private let primaryReads = Counter(label: "db_reads_total", dimensions: [("server", "primary")])

    public init(
        primary: PostgresPool, replica: PostgresPool, maxLag: Duration, pollEvery: Duration = .milliseconds(100),
        logger: Logger
    ) {
        self.primary = primary
        self.replica = replica
        self.maxLag = maxLag
        self.pollEvery = pollEvery
        self.logger = logger
    }

    /// Call on `connection` (to the primary) right after a write on it committed: notes the
    /// primary's insert position for `keys`, nil meaning every key. One round trip.
    public func noteCommit(of keys: [String]?, on connection: PostgresConnection) throws {
        note(try WALPosition.insertPosition(on: connection), keys: keys)
    }

    /// `noteCommit(of:on:)` on a connection of its own, for a write that has returned.
    public func noteCommit(of keys: [String]?) async throws {
        try await primary.withConnection { try self.noteCommit(of: keys, on: $0) }
    }

    func note(_ position: WALPosition, keys: [String]?) {
        state.withLockedValue { state in
            state.latest = max(state.latest, position)
            guard let keys else {
                state.floor = max(state.floor, position)
                return
            }
            for key in keys { state.commits[key.hashValue] = max(state.commits[key.hashValue] ?? .zero, position) }
            if state.commits.count > Self.maxTrackedKeys {
                state.floor = max(state.floor, state.latest)
                state.commits = [:]
            }
        }
    }

    /// The consistency token to answer a write with: at or past every commit this process has
    /// made, the one just made included.
    public var latestCommit: WALPosition {
        state.withLockedValue { max($0.latest, $0.floor) }
    }

    /// Whether a read of `key` (nil: of every key) now may go to the replica; never when `strong`.
    public func usesReplica(strong: Bool, key: String?, after token: WALPosition? = nil) -> Bool {
        guard !strong else { return false }
        return state.withLockedValue { state in
            guard let asOf = state.replayedAsOf, let replayed = state.replayed,
                ContinuousClock.now - asOf <= maxLag
            else { return false }
            return replayed >= state.required(key: key, after: token)
        }
    }

    /// Runs `body` on the replica when `usesReplica(strong:key:after:)`, else on the primary. A
    /// replica that fails with a transient error (gone, refusing, timing out) is skipped until the
    /// next poll finds it again, and `body` runs on the primary.
    public func read<T: Sendable>(
        strong: Bool = false, key: String?, after token: WALPosition? = nil,
        _ body: (PostgresPool) async throws -> T
    ) async throws -> T {
        if usesReplica(strong: strong, key: key, after: token) {
            do {
                let value = try await body(replica)
                replicaReads.increment()
                return value
            } catch let error as PostgresError where error.isTransient {
                state.withLockedValue {
                    $0.replayedAsOf = nil
                    $0.replayed = nil
                }
                logger.warning("read replica failed; reading from the primary", metadata: ["error": "\(error)"])
            }
        }
        let value = try await body(primary)
        primaryReads.increment()
        return value
    }

    /// Polls until the calling task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            await poll()
            try? await Task.sleep(for: pollEvery)
        }
    }

    func poll() async {
        let noted = ContinuousClock.now
        guard let position = try? await Self.position("pg_current_wal_insert_lsn()", on: primary) else { return }
        let replayed = try? await Self.position("pg_last_wal_replay_lsn()", on: replica)
        let lagging = record(primaryAt: position, notedAt: noted, replayed: replayed)
        up.record(lagging == nil ? 0 : 1)
        if let lagging { lag.record(Double(lagging.nanoseconds) / 1e9) }
    }

    /// Takes in one poll's answers: the primary's insert position noted at `noted`, and the
    /// replica's replay position (nil when it did not answer, -1 when it is no replica). Returns
    /// the replica's lag, nil when it cannot be used.
    func record(primaryAt position: Int64, notedAt noted: ContinuousClock.Instant, replayed: Int64?) -> Duration? {
        state.withLockedValue { state in
            state.samples.append((noted, position))
            state.samples.removeFirst(state.samples.prefix { noted - $0.at > Self.history(maxLag) }.count)
            guard let replayed, replayed >= 0 else {
                state.replayedAsOf = nil
                state.replayed = nil
                return nil
            }
            let reached = WALPosition(bytes: UInt64(replayed))
            state.replayed = reached
            // What the replica has replayed needs no tracking: the floor stands for it. Should the
            // replica come back from a restart further behind, reads wait for it to pass the floor.
            state.floor = max(state.floor, reached)
            state.commits = state.commits.filter { $0.value > reached }
            state.replayedAsOf = state.samples.last { $0.lsn <= replayed }?.at
            // Further behind than the history: at least as old as its oldest sample.
            return .now - (state.replayedAsOf ?? state.samples[0].at)
        }
    }

    /// How long primary positions are kept: enough to measure a lag well past the bound.
    private static func history(_ maxLag: Duration) -> Duration { max(maxLag * 2, .seconds(60)) }

    /// A WAL position as a number (bytes since 0/0); -1 when the server has none to give (the
    /// replay position of a server that is not a replica).
    private static func position(_ function: String, on pool: PostgresPool) async throws -> Int64 {
        try await pool.withConnection { connection in
            Int64(
                try connection.query("SELECT coalesce((\(function) - '0/0'::pg_lsn)::bigint, -1)::int8 AS lsn").rows[0]
                    .int("lsn"))
        }
    }
}
