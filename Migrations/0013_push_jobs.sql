-- Push jobs: a push to more users than one request may wait for, kept here until every device has
-- an outcome, so a restart loses nothing. `kind` and `payload` say what to send: 'push' is a
-- POST /v1/push body without its user ids; other kinds (call events) reuse the same machinery.
-- The payload is kept as the JSON text the API wrote, not jsonb: jsonb refuses the escaped NUL
-- (\u0000) a push payload may carry, and only the worker reads it.
--
-- `receiving` is a job whose recipients are still being written (a streamed body); workers never
-- see it, and the API answers 202 only once it is `queued`. The counters move in the same
-- transaction as the delivery rows they count, so they add up at every read:
-- total = pending + sent + token_invalid + rejected + failed + expired + skipped.
CREATE TABLE push_jobs (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    kind           text NOT NULL CHECK (kind IN ('push')),
    payload        text NOT NULL,
    status         text NOT NULL
                   CHECK (status IN ('receiving', 'queued', 'running', 'done', 'cancelled', 'expired')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    deadline_at    timestamptz NOT NULL,
    started_at     timestamptz,
    finished_at    timestamptz,
    total          integer NOT NULL DEFAULT 0,
    pending        integer NOT NULL DEFAULT 0,
    sent           integer NOT NULL DEFAULT 0,
    token_invalid  integer NOT NULL DEFAULT 0,
    rejected       integer NOT NULL DEFAULT 0,
    failed         integer NOT NULL DEFAULT 0,
    expired        integer NOT NULL DEFAULT 0,
    skipped        integer NOT NULL DEFAULT 0
);

-- Workers look for live jobs; retention for finished ones.
CREATE INDEX push_jobs_live ON push_jobs (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX push_jobs_finished ON push_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- One row per targeted device, resolved when the job is accepted. A worker claims pending rows
-- by setting `claim` and a lease (`claimed_until`); a lease that runs out (a dead instance) makes
-- the row claimable again. `device_id` is not a foreign key: a device deleted meanwhile, or whose
-- token has since moved to another user than `user_id`, is recorded as skipped (never pushed to
-- someone the job did not target), and the outcome outlives it.
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
    PRIMARY KEY (job_id, device_id)
);

CREATE INDEX push_job_deliveries_pending ON push_job_deliveries (job_id, device_id) WHERE status = 'pending';
-- What is in flight (a cancel waits for it), without reading every pending row.
CREATE INDEX push_job_deliveries_claimed ON push_job_deliveries (job_id, claimed_until)
    WHERE status = 'pending' AND claim IS NOT NULL;

-- Claims: a sequence, so two claims never share a number across instances.
CREATE SEQUENCE push_job_claims;
