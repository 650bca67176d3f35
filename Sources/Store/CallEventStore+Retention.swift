import Foundation
import Postgres

/// Call events are kept in one partition per UTC day (migration 0016): retention drops whole
/// days, and a maintenance step keeps the coming week's days created ahead of the inserts.
extension CallEventStore {
    /// How many days ahead of today the day partitions are kept created.
    static let daysAhead = 7

    /// Creates the missing day partitions from today to a week ahead (moving any row the default
    /// partition holds for them); returns how many it created.
    @discardableResult
    public func addPartitions() async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try Self.addDayPartitions(of: "call_events", key: "created_at", on: connection)
            }
        }
    }

    static func addDayPartitions(of table: String, key: String, on connection: PostgresConnection) throws -> Int {
        try connection.queryPrepared(
            """
            SELECT registry_add_day_partitions($1, $2, (now() AT TIME ZONE 'UTC')::date,
                                               (now() AT TIME ZONE 'UTC')::date + $3::integer) AS made
            """, [table, key, daysAhead]
        ).rows[0].int("made")
    }

    /// Drops the days whose every event was created before `cutoff`, then deletes the default
    /// partition's older rows (rows no day partition took), `batchSize` per transaction; returns
    /// how many events went. An event of the day `cutoff` falls in stays until that day is
    /// wholly past it: retention is `cutoff` plus at most a day.
    public func prune(createdBefore cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        precondition(batchSize > 0, "a prune batch holds at least one row")
        try await addPartitions()
        return try await StoreFailure.translating {
            var total = try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT registry_drop_call_event_days($1) AS n", [cutoff]).rows[0]
                    .int("n")
            }
            while true {
                let deleted = try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        DELETE FROM call_events_default WHERE (id, created_at) IN (
                            SELECT id, created_at FROM call_events_default WHERE created_at < $1
                             ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
                        """, [cutoff, batchSize]
                    ).affectedRows
                }
                total += deleted
                if deleted < batchSize { return total }
            }
        }
    }
}
