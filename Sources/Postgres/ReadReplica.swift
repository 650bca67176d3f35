import Logging
import Metrics
import NIOConcurrencyHelpers

/// Sends reads to a streaming replica when that cannot show this process anything older than its
/// own last write, and the replica is up and not too far behind; to the primary otherwise. A
/// read never fails because the replica is gone: `read` runs it again on the primary.
///
/// How fresh the replica is comes from `run()`, which every `pollEvery` notes the primary's WAL
/// insert position and the time, then asks the replica how far it has replayed. The replica then
/// shows the primary at least as it was at the latest noted time whose position it has replayed
/// (`replayedAsOf`); its lag is how long ago that was. A read may use it when `replayedAsOf` is
/// after this process's last commit (`noteCommit`): a position noted after a commit returned
/// is past that commit's record. Writes cost nothing more; a read after a write goes to the
/// primary for a poll or two.
public final class ReadReplica: Sendable {
    private struct State {
        /// Primary WAL positions and when they were noted, oldest first.
        var samples: [(at: ContinuousClock.Instant, lsn: Int64)] = []
        /// Nil while the replica does not answer (or is no replica).
        var replayedAsOf: ContinuousClock.Instant?
        var lastCommit = ContinuousClock.Instant.now
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

    /// Call when a write on the primary has finished, committed or not (an outcome lost with the
    /// connection may have committed).
    public func noteCommit() {
        state.withLockedValue { $0.lastCommit = .now }
    }

    /// Whether a read now may go to the replica; never when `strong`.
    public func usesReplica(strong: Bool) -> Bool {
        guard !strong else { return false }
        return state.withLockedValue { state in
            guard let asOf = state.replayedAsOf else { return false }
            return asOf > state.lastCommit && ContinuousClock.now - asOf <= maxLag
        }
    }

    /// Runs `body` on the replica when `usesReplica(strong:)`, else on the primary. A replica that
    /// fails with a transient error (gone, refusing, timing out) is skipped until the next poll
    /// finds it again, and `body` runs on the primary.
    public func read<T: Sendable>(strong: Bool = false, _ body: (PostgresPool) async throws -> T) async throws -> T {
        if usesReplica(strong: strong) {
            do {
                let value = try await body(replica)
                replicaReads.increment()
                return value
            } catch let error as PostgresError where error.isTransient {
                state.withLockedValue { $0.replayedAsOf = nil }
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
        let lagging: Duration? = state.withLockedValue { state in
            state.samples.append((noted, position))
            state.samples.removeFirst(state.samples.prefix { noted - $0.at > Self.history(maxLag) }.count)
            guard let replayed, replayed >= 0 else {
                state.replayedAsOf = nil
                return nil
            }
            state.replayedAsOf = state.samples.last { $0.lsn <= replayed }?.at
            // Further behind than the history: at least as old as its oldest sample.
            return .now - (state.replayedAsOf ?? state.samples[0].at)
        }
        up.record(lagging == nil ? 0 : 1)
        if let lagging { lag.record(Double(lagging.nanoseconds) / 1e9) }
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
