import Foundation
import Postgres

extension PushJobStore {
    /// Deletes jobs finished before `cutoff` (and jobs still `receiving` since before it: a body
    /// whose server died mid-stream), with their outcomes, `batchSize` rows per transaction, so
    /// no statement runs long or touches a live job's rows. Returns the jobs deleted.
    public func pruneFinished(before cutoff: Date, batchSize: Int = 10_000) async throws -> Int {
        var deleted = 0
        while true {
            let jobs = try await StoreFailure.translating {
                try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        SELECT id FROM push_jobs
                         WHERE finished_at < $1 OR (status = 'receiving' AND created_at < $1)
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
                        DELETE FROM push_job_deliveries WHERE job_id = $1 AND device_id IN (
                            SELECT device_id FROM push_job_deliveries WHERE job_id = $1 LIMIT $2)
                        """, [job, batchSize]
                    ).affectedRows
                }
            }
            if removed < batchSize { return }
        }
    }
}
