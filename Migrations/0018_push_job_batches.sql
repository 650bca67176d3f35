-- Push jobs claim and record their devices a batch at a time. On the fan-out bench PostgreSQL
-- spent about 110 µs of CPU per push, nine tenths of it in the claim: each device's row was
-- updated twice (claimed, then recorded), so the pending index each claim scanned from its start
-- filled with dead entries, and every update wrote index entries and left a dead row behind.
--
-- Now a job's `push_job_deliveries` row is written once, when the job is accepted, and never
-- updated: it only says that the job targets the device (for that user). A claim takes the next
-- recipients in device order, or a batch whose lease ran out, as one `push_job_batches` row, leased
-- as a whole; the outcomes are appended to that row as arrays, one update per batch. The job's
-- counters still move in the same statement as the outcomes they count.
CREATE TABLE push_job_batches (
    job_id         uuid NOT NULL REFERENCES push_jobs (id) ON DELETE CASCADE,
    -- The recipients from `first_device` to `last_device` (device ids, inclusive). Batches of a
    -- job never overlap, and the next one starts after the highest `last_device`.
    first_device   bigint NOT NULL,
    last_device    bigint NOT NULL,
    -- The claim working on it and its lease; NULL when none does (taken at once by the next
    -- claim while the job is live).
    claim          bigint,
    claimed_until  timestamptz,
    attempts       integer NOT NULL DEFAULT 1,
    -- The outcomes recorded so far, one position per device: a device here is never sent again.
    device_ids     bigint[] NOT NULL DEFAULT '{}',
    statuses       text[] NOT NULL DEFAULT '{}'
                   CHECK (statuses <@ ARRAY['sent', 'token_invalid', 'rejected', 'failed', 'expired', 'skipped']),
    reasons        text[] NOT NULL DEFAULT '{}',
    service_ids    text[] NOT NULL DEFAULT '{}',
    -- Set once every recipient of the batch has an outcome.
    finished_at    timestamptz,
    PRIMARY KEY (job_id, first_device)
);

-- Claims look for a batch to take over, and a cancel for claims still held, among the few a job
-- has open.
CREATE INDEX push_job_batches_open ON push_job_batches (job_id) WHERE finished_at IS NULL;

-- The outcomes so far, as batches of up to 500 devices of each accepted job in device order:
-- recorded devices' outcomes move into their batch, and a batch with a device still pending is
-- open and unclaimed, so the first claim after the deploy takes it (an instance of the previous
-- version still working would send those devices again: at most its claims in flight). A job
-- still `receiving` gets its batches when claimed, like any new job.
INSERT INTO push_job_batches (job_id, first_device, last_device, claim, claimed_until, attempts, device_ids, statuses,
                              reasons, service_ids, finished_at)
SELECT job_id, min(device_id), max(device_id), NULL, NULL, max(greatest(attempts, 1)),
       coalesce(array_agg(device_id ORDER BY device_id) FILTER (WHERE status <> 'pending'), '{}'),
       coalesce(array_agg(status ORDER BY device_id) FILTER (WHERE status <> 'pending'), '{}'),
       coalesce(array_agg(reason ORDER BY device_id) FILTER (WHERE status <> 'pending'), '{}'),
       coalesce(array_agg(service_id ORDER BY device_id) FILTER (WHERE status <> 'pending'), '{}'),
       CASE WHEN bool_and(status <> 'pending') THEN max(finished_at) END
  FROM (SELECT *, (row_number() OVER (PARTITION BY job_id ORDER BY device_id) - 1) / 500 AS batch
          FROM push_job_deliveries
         WHERE job_id IN (SELECT id FROM push_jobs WHERE status <> 'receiving')) d
 GROUP BY job_id, batch;

-- What the rows held now lives in the batches; their partial indexes go with the columns. The
-- foreign key goes too: it cost each accepted device a lookup and lock of its job's row, about
-- half of the accept's CPU. Nothing deletes a job with its recipients still in place: a refused
-- job's rows are deleted before it (`PushJobStore.discard`), and retention drops or empties a
-- day's rows before its jobs.
ALTER TABLE push_job_deliveries
    DROP COLUMN status, DROP COLUMN claim, DROP COLUMN claimed_until, DROP COLUMN attempts, DROP COLUMN reason,
    DROP COLUMN service_id, DROP COLUMN finished_at,
    DROP CONSTRAINT push_job_deliveries_job_id_fkey;
