-- One row per call event id (POST /v1/call-events, the DialStack webhook): what makes an event
-- idempotent across instances, and its per-device results for GET /v1/call-events/{id}.
-- The first poster inserts the row `running` and sends; every other poster of the same id finds
-- it: the same `digest` (SHA-256 of the event's canonical form) is a duplicate, another one a
-- conflict. `deadline` is when the first poster stops sending: a row still `running` well after
-- it was left by a crashed instance and is reported as abandoned, never waited on for ever.
-- Rows are kept for the history (7 days by default, see `prune`); an id dedupes for 24 h.
CREATE TABLE call_events (
    id          text PRIMARY KEY CHECK (octet_length(id) BETWEEN 1 AND 255),
    digest      text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    type        text NOT NULL,
    state       text NOT NULL CHECK (state IN ('running', 'done')),
    deadline    timestamptz NOT NULL,
    result      jsonb CHECK ((state = 'done') = (result IS NOT NULL)),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz CHECK ((state = 'done') = (finished_at IS NOT NULL))
);

-- The prune deletes by age.
CREATE INDEX call_events_created_at ON call_events (created_at);
