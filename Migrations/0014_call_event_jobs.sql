-- Call events too big for one answer (more than 1,000 users, or "async": true) are sent as push
-- jobs of kind 'call_event': the payload is the event without its users, who are the job's
-- recipients, and the worker composes each device's push in its provider's format.
ALTER TABLE push_jobs DROP CONSTRAINT push_jobs_kind_check;
ALTER TABLE push_jobs ADD CONSTRAINT push_jobs_kind_check CHECK (kind IN ('push', 'call_event'));

-- Such an event's row is `done` once its job is accepted, with no per-device results (the job
-- holds them) and the job's id, so a duplicate post answers with the same job. Not a foreign
-- key: a job may be pruned before the event, and the event's history then names a job gone.
ALTER TABLE call_events ADD COLUMN job_id uuid;
