import Foundation
import Postgres
import Store
import TestSupport
import Testing

/// Retention drops whole day partitions (migrations 0016, 0017): a day past the cutoff is gone,
/// with its jobs and events, and a live job's rows, even in a day that is past it, stay as they
/// were.
@Suite struct PartitionRetentionTests {
    static let finishedJob = "00000000-0000-0000-0000-00000000000a"
    static let liveOldJob = "00000000-0000-0000-0000-00000000000b"
    static let doneBesideLiveJob = "00000000-0000-0000-0000-00000000000c"
    static let liveJob = "00000000-0000-0000-0000-00000000000d"

    @Test func pruneDropsPastDaysAndLeavesLiveJobsRows() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url, poolSize: 2),
            logger: TestSupport.logger("retention"))
        let outcome = await Result.of {
            try await pool.withConnection { connection in try Self.seed(connection) }
            let before = try await pool.withConnection { try Self.liveRows($0) }
            let cutoff = Date().addingTimeInterval(-7 * 86_400)

            let jobs = try await PushJobStore(pool: pool).pruneFinished(before: cutoff)
            let events = try await CallEventStore(pool: pool).prune(createdBefore: cutoff)

            #expect(jobs == 1, "only the job whose whole day is over and past the cutoff")
            #expect(events == 2, "the events of the two days wholly before the cutoff")
            try await pool.withConnection { connection in
                let day10 = Self.partition("push_job_deliveries", daysAgo: 10)
                let day9 = Self.partition("push_job_deliveries", daysAgo: 9)
                #expect(try Self.exists(day10, connection) == false, "the pruned day is gone")
                #expect(try Self.exists(day9, connection), "a day with a live job stays")
                for days in [8, 9] {
                    #expect(try Self.exists(Self.partition("call_events", daysAgo: days), connection) == false)
                }
                #expect(try Self.exists(Self.partition("call_events", daysAgo: 1), connection))
                let jobsLeft = try connection.query("SELECT id::text AS id FROM push_jobs ORDER BY id").rows
                    .map { try $0.string("id") }
                #expect(jobsLeft == [Self.liveOldJob, Self.doneBesideLiveJob, Self.liveJob])
                #expect(try connection.query("SELECT count(*)::int AS n FROM call_events").rows[0].int("n") == 8)
                #expect(try Self.liveRows(connection) == before, "live jobs' rows are untouched")
                let ahead = Self.partition("call_events", daysAgo: -7)
                #expect(try Self.exists(ahead, connection), "the week ahead is created")
            }
        }
        await pool.shutdown()
        await database.drop()
        try outcome.get()
    }

    /// Jobs 10 and 9 days old (one of the latter still live), one live job today, each with three
    /// recipients in one batch (claimed for the live ones, recorded for the others); a call event per day for ten days; then the day partitions of
    /// those days, which take their rows out of the default partition. The recipients' rows are
    /// as an instance before migration 0019 wrote them (since then its trigger refuses them).
    static func seed(_ connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO push_jobs (id, kind, payload, status, created_at, deadline_at, finished_at, total, pending, sent)
            VALUES ('\(finishedJob)', 'push', '{}', 'done', now() - interval '10 days', now() - interval '10 days',
                    now() - interval '10 days', 3, 0, 3),
                   ('\(liveOldJob)', 'push', '{}', 'running', now() - interval '9 days', now() + interval '1 hour',
                    NULL, 3, 3, 0),
                   ('\(doneBesideLiveJob)', 'push', '{}', 'done', now() - interval '9 days',
                    now() - interval '9 days', now() - interval '9 days', 3, 0, 3),
                   ('\(liveJob)', 'push', '{}', 'running', now(), now() + interval '1 hour', NULL, 3, 3, 0);
            ALTER TABLE push_job_deliveries DISABLE TRIGGER push_job_deliveries_retired;
            INSERT INTO push_job_deliveries (job_id, device_id, user_id, job_created_at)
            SELECT j.id, n, 'user' || n, j.created_at FROM push_jobs j, generate_series(1, 3) n;
            ALTER TABLE push_job_deliveries ENABLE TRIGGER push_job_deliveries_retired;
            INSERT INTO push_job_batches (job_id, batch, first_device, last_device, claim, claimed_until, recipients,
                                          recipient_users, device_ids, statuses, reasons, service_ids, finished_at)
            SELECT id, 0, 1, 3, CASE WHEN status = 'running' THEN 7 END,
                   CASE WHEN status = 'running' THEN now() + interval '1 minute' END, '{1,2,3}', '{user1,user2,user3}',
                   CASE WHEN status = 'done' THEN '{1,2,3}'::bigint[] ELSE '{}' END,
                   CASE WHEN status = 'done' THEN '{sent,sent,sent}'::text[] ELSE '{}' END,
                   CASE WHEN status = 'done' THEN '{NULL,NULL,NULL}'::text[] ELSE '{}' END,
                   CASE WHEN status = 'done' THEN '{a,b,c}'::text[] ELSE '{}' END, finished_at
              FROM push_jobs;
            INSERT INTO call_events (id, digest, type, state, deadline, result, created_at, finished_at)
            SELECT 'evt_' || n, repeat('0', 64), 'call.ring', 'done', now(), '[]',
                   now() - make_interval(days => n), now()
              FROM generate_series(0, 9) n;
            SELECT registry_add_day_partitions('push_job_deliveries', 'job_created_at', (now() AT TIME ZONE 'UTC')::date - 11,
                                               (now() AT TIME ZONE 'UTC')::date);
            SELECT registry_add_day_partitions('call_events', 'created_at', (now() AT TIME ZONE 'UTC')::date - 11,
                                               (now() AT TIME ZONE 'UTC')::date);
            """)
    }

    static func liveRows(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT concat_ws(' ', job_id, device_id, tableoid::regclass) AS row
              FROM push_job_deliveries d WHERE job_id IN ('\(liveOldJob)', '\(liveJob)')
            UNION ALL
            SELECT concat_ws(' ', job_id, first_device, last_device, claim, claimed_until, device_ids, finished_at)
              FROM push_job_batches WHERE job_id IN ('\(liveOldJob)', '\(liveJob)')
             ORDER BY 1
            """
        ).rows.map { try $0.string("row") }
    }

    static func partition(_ table: String, daysAgo: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd"
        return table + "_p" + formatter.string(from: Date().addingTimeInterval(-Double(daysAgo) * 86_400))
    }

    static func exists(_ table: String, _ connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT to_regclass($1) IS NOT NULL AS present", [table]).rows[0].bool("present")
    }
}
