-- Retention by partition for push jobs' per-device outcomes (one row per device a job targets:
-- the bulk of the database's writes after the devices themselves). `push_job_deliveries` is
-- partitioned by its job's `created_at` (copied into `job_created_at`), one partition per UTC
-- day, and the prune drops a day once every job of that day finished before the retention
-- cutoff: a live job's rows are never touched. The default partition and the functions are
-- 0016's.
ALTER TABLE push_job_deliveries RENAME TO push_job_deliveries_unpartitioned;
ALTER TABLE push_job_deliveries_unpartitioned
    RENAME CONSTRAINT push_job_deliveries_pkey TO push_job_deliveries_unpartitioned_pkey;
ALTER INDEX push_job_deliveries_pending RENAME TO push_job_deliveries_unpartitioned_pending;
ALTER INDEX push_job_deliveries_claimed RENAME TO push_job_deliveries_unpartitioned_claimed;
ALTER TABLE push_job_deliveries_unpartitioned
    RENAME CONSTRAINT push_job_deliveries_job_id_fkey TO push_job_deliveries_unpartitioned_job_id_fkey;

-- The key must hold the partition key; (job_id, device_id) stays unique since a job has one
-- `created_at`.
CREATE TABLE push_job_deliveries (
    job_id         uuid NOT NULL REFERENCES push_jobs (id) ON DELETE CASCADE,
    device_id      bigint NOT NULL,
    user_id        text NOT NULL,
    status         text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sent', 'token_invalid', 'rejected', 'failed', 'expired', 'skipped')),
    claim          bigint,
    claimed_until  timestamptz,
    attempts       integer NOT NULL DEFAULT 0,
    reason         text,
    service_id     text,
    finished_at    timestamptz,
    job_created_at timestamptz NOT NULL,
    PRIMARY KEY (job_id, device_id, job_created_at)
) PARTITION BY RANGE (job_created_at);

CREATE INDEX push_job_deliveries_pending ON push_job_deliveries (job_id, device_id) WHERE status = 'pending';
CREATE INDEX push_job_deliveries_claimed ON push_job_deliveries (job_id, claimed_until)
    WHERE status = 'pending' AND claim IS NOT NULL;

CREATE TABLE push_job_deliveries_default PARTITION OF push_job_deliveries DEFAULT;

SELECT registry_add_day_partitions(
    'push_job_deliveries', 'job_created_at',
    least((now() AT TIME ZONE 'UTC')::date, (SELECT min(created_at AT TIME ZONE 'UTC')::date FROM push_jobs)),
    (now() AT TIME ZONE 'UTC')::date + 7);

INSERT INTO push_job_deliveries (job_id, device_id, user_id, status, claim, claimed_until, attempts, reason,
                                 service_id, finished_at, job_created_at)
SELECT d.job_id, d.device_id, d.user_id, d.status, d.claim, d.claimed_until, d.attempts, d.reason, d.service_id,
       d.finished_at, j.created_at
  FROM push_job_deliveries_unpartitioned d JOIN push_jobs j ON j.id = d.job_id;

DROP TABLE push_job_deliveries_unpartitioned;

-- Drops the day partitions of outcomes whose every job finished before `before` (or was left
-- `receiving` by a server that died mid-body), with those jobs; returns the jobs deleted. A day
-- with a job still live, or finished since `before`, waits for a later prune. The jobs of the
-- day are locked first, so none can be claimed, cancelled or finish while its rows go.
CREATE FUNCTION registry_drop_push_job_days(before timestamptz) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    part record;
    jobs bigint;
    deleted bigint := 0;
BEGIN
    PERFORM set_config('lock_timeout', '1s', true);
    FOR part IN SELECT * FROM registry_day_partitions_before('push_job_deliveries', before) LOOP
        CONTINUE WHEN EXISTS (
            SELECT 1 FROM (SELECT status, finished_at FROM push_jobs
                            WHERE created_at >= part.lower_bound AND created_at < part.upper_bound FOR UPDATE) j
             WHERE NOT (coalesce(j.finished_at < before, false) OR j.status = 'receiving'));
        EXECUTE format('DROP TABLE %I', part.name);
        DELETE FROM push_jobs WHERE created_at >= part.lower_bound AND created_at < part.upper_bound;
        GET DIAGNOSTICS jobs = ROW_COUNT;
        deleted := deleted + jobs;
    END LOOP;
    RETURN deleted;
END $$;
