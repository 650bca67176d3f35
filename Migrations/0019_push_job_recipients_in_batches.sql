-- A job's recipients are written at accept as its batches, each a row of up to `PUSH_JOB_BATCH`
-- device ids (with their users) as arrays, instead of a `push_job_deliveries` row per device. On
-- the fan-out bench the accept's insert was the largest statement PostgreSQL ran (6.8 µs of CPU
-- per push of its 18): a heap row, a primary-key entry and a speculative insertion (`ON CONFLICT
-- DO NOTHING`) per device, and the WAL and the vacuum of a million rows per million-device job.
-- A claim then takes the next open batch as it is, with no insert of its own.
--
-- A batch is named by its number within the job (`batch`), no longer by its first device: the
-- batches of one chunk of users never overlap, but a user named twice in a job puts the same
-- devices in two chunks' batches until the accept removes the repeats (`PushJobStore`).
-- `first_device` and `last_device` stay: the range the batch's recipients lie in.
ALTER TABLE push_job_batches
    ADD COLUMN batch bigint,
    -- The batch's devices in ascending order, and each one's user when the job was accepted: a
    -- device of another user by the time it is sent is skipped, not pushed.
    ADD COLUMN recipients bigint[] COMPRESSION lz4 NOT NULL DEFAULT '{}',
    ADD COLUMN recipient_users text[] COMPRESSION lz4 NOT NULL DEFAULT '{}',
    ALTER COLUMN device_ids SET COMPRESSION lz4,
    ALTER COLUMN statuses SET COMPRESSION lz4,
    ALTER COLUMN reasons SET COMPRESSION lz4,
    ALTER COLUMN service_ids SET COMPRESSION lz4,
    ALTER COLUMN attempts SET DEFAULT 0;

UPDATE push_job_batches SET batch = first_device;
ALTER TABLE push_job_batches
    ALTER COLUMN batch SET NOT NULL,
    DROP CONSTRAINT push_job_batches_pkey,
    ADD PRIMARY KEY (job_id, batch);

-- Jobs not over yet (a job still `receiving` included: its accept may finish after this) get
-- their recipients from `push_job_deliveries`: the batches claimed so far take the recipients in
-- their range, and the rest become new open batches of up to 500 devices in device order. Over
-- jobs keep their outcomes and no recipients: nothing claims them again.
UPDATE push_job_batches b SET recipients = r.devices, recipient_users = r.users
  FROM (SELECT b2.job_id, b2.batch, array_agg(d.device_id ORDER BY d.device_id) AS devices,
               array_agg(d.user_id ORDER BY d.device_id) AS users
          FROM push_job_batches b2
          JOIN push_jobs j ON j.id = b2.job_id AND j.status IN ('receiving', 'queued', 'running')
          JOIN push_job_deliveries d ON d.job_id = b2.job_id AND d.job_created_at = j.created_at
                                    AND d.device_id BETWEEN b2.first_device AND b2.last_device
         GROUP BY b2.job_id, b2.batch) r
 WHERE b.job_id = r.job_id AND b.batch = r.batch;

INSERT INTO push_job_batches (job_id, batch, first_device, last_device, recipients, recipient_users)
SELECT job_id, min(device_id), min(device_id), max(device_id), array_agg(device_id ORDER BY device_id),
       array_agg(user_id ORDER BY device_id)
  FROM (SELECT d.job_id, d.device_id, d.user_id,
               (row_number() OVER (PARTITION BY d.job_id ORDER BY d.device_id) - 1) / 500 AS part
          FROM push_job_deliveries d
          JOIN push_jobs j ON j.id = d.job_id AND d.job_created_at = j.created_at
         WHERE j.status IN ('receiving', 'queued', 'running')
           AND d.device_id > coalesce((SELECT max(last_device) FROM push_job_batches b WHERE b.job_id = d.job_id), -1)) rest
 GROUP BY job_id, part;

-- `push_job_deliveries` keeps the rows written before this migration, until retention drops their
-- day (its day partitions still pace the prune of jobs), and takes no new ones: an instance of the
-- previous version accepting a job during a rolling deploy fails instead of writing recipients
-- that no claim would read (the client retries, against the new version). Its claims of batches
-- of jobs accepted since find no recipients there and send nothing; their lease runs out and a
-- new instance takes the batch over. A statement trigger on the parent only: the partition
-- functions move rows between partitions themselves.
CREATE FUNCTION push_job_deliveries_retired() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'push_job_deliveries takes no new rows since migration 0019 (recipients live in push_job_batches)'
        USING ERRCODE = 'object_not_in_prerequisite_state';
END $$;
CREATE TRIGGER push_job_deliveries_retired BEFORE INSERT ON push_job_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION push_job_deliveries_retired();
