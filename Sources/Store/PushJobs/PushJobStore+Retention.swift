import Foundation
import Postgres

/// Finished jobs' per-device outcomes sit in one partition per UTC day of their job's creation
/// (migration 0017): retention drops whole days, never touching a live job's rows.
extension PushJobStore {
    /// Creates the missing day partitions from today to a week ahead; returns how many.
    @discardableResult
    public func addPartitions() async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try CallEventStore.addDayPartitions(of: "push_job_deliveries", key: "job_created_at", on: connection)
            }
        }
    }

    /// Deletes jobs finished before `cutoff` (and jobs still `receiving` since before it: a body
    /// whose server died mid-stream) with their outcomes, and returns how many. A day's outcomes
    /// go as one partition once every job of the day is over, finished before `cutoff`; so a job
    /// goes up to a day (or its day's longest job) after `cutoff`. Jobs whose outcomes the default
    /// partition holds (no day partition for their day) are deleted `batchSize` rows per
    /// transaction.
    public func pruneFinished(before cutoff: Date, batchSize: Int = 10_000) async throws -> Int {
        try await addPartitions()
        var deleted = try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT registry_drop_push_job_days($1) AS n", [cutoff]).rows[0].int("n")
            }
        }
        while true {
            let jobs = try await StoreFailure.translating {
                try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        SELECT id FROM push_jobs
                         WHERE (finished_at < $1 OR (status = 'receiving' AND created_at < $1))
                           AND to_regclass('push_job_deliveries_p' || to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD'))
                               IS NULL
                         ORDER BY created_at LIMIT 100
                        """, [cutoff]
                    ).rows.map { try $0.string("id") }
                }
            }
            if jobs.isEmpty { return deleted }
            for job in jobs {
                try await deleteOutcomes(of: job, batchSize: batchSize)
                try await StoreFailure.translating {
                    try await pool.withConnection { connection in
                        _ = try connection.queryPrepared("DELETE FROM push_jobs WHERE id = $1", [job])
                    }
                }
                deleted += 1
            }
        }
    }

    private func deleteOutcomes(of job: String, batchSize: Int) async throws {
        while true {
            let removed = try await StoreFailure.translating {
                try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        DELETE FROM push_job_deliveries_default WHERE job_id = $1 AND device_id IN (
                            SELECT device_id FROM push_job_deliveries_default WHERE job_id = $1 LIMIT $2)
                        """, [job, batchSize]
                    ).affectedRows
                }
            }
            if removed < batchSize { return }
        }
    }
}
