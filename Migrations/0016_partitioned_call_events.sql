-- Retention by partition: at millions of rings a day, deleting call events row by row was the
-- largest write load the database had. `call_events` is now partitioned by `created_at`, one
-- partition per UTC day named call_events_pYYYYMMDD, and the prune drops whole days.
-- A `_default` partition takes any row no day covers (a backdated row, or maintenance that has
-- not run for a week), so an insert never fails for want of a partition; maintenance moves such
-- rows into their day when it creates it. No pg_partman: two functions below do what we need,
-- with no extension to install on every server and replica.

-- Creates the missing day partitions of `parent` from `first_day` to `last_day` (UTC), moving
-- the default partition's rows of each day into it; returns how many it created. Built with
-- LIKE + ATTACH, which takes a SHARE UPDATE EXCLUSIVE lock on the parent (CREATE TABLE ...
-- PARTITION OF would take ACCESS EXCLUSIVE and stop every ring for that moment).
CREATE FUNCTION registry_add_day_partitions(parent text, key text, first_day date, last_day date)
    RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    day date;
    name text;
    lower_bound timestamptz;
    upper_bound timestamptz;
    made integer := 0;
BEGIN
    -- Two instances' maintenance at once would race on the catalog: one at a time.
    PERFORM pg_advisory_xact_lock(hashtextextended('partitions:' || parent, 0));
    FOR day IN SELECT d::date FROM generate_series(first_day::timestamp, last_day::timestamp, interval '1 day') d LOOP
        name := parent || '_p' || to_char(day, 'YYYYMMDD');
        CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
        lower_bound := day::timestamp AT TIME ZONE 'UTC';
        upper_bound := (day + 1)::timestamp AT TIME ZONE 'UTC';
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name, parent);
        EXECUTE format(
            'WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
            parent || '_default', key, lower_bound, key, upper_bound, name);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
            parent, name, lower_bound, upper_bound);
        made := made + 1;
    END LOOP;
    RETURN made;
END $$;

-- The day partitions of `parent` whose whole day is before `before`, oldest first.
CREATE FUNCTION registry_day_partitions_before(parent text, before timestamptz)
    RETURNS TABLE (name text, lower_bound timestamptz, upper_bound timestamptz) LANGUAGE sql STABLE AS $$
    SELECT c.relname::text, d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC'
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
           LATERAL to_date(right(c.relname, 8), 'YYYYMMDD') d
     WHERE i.inhparent = to_regclass(quote_ident(parent)) AND c.relname ~ '_p[0-9]{8}$'
       AND (d + 1)::timestamp AT TIME ZONE 'UTC' <= before
     ORDER BY d
$$;

-- Drops the day partitions of call events created before `before`; returns the events they held.
-- Dropping a partition takes an ACCESS EXCLUSIVE lock on the parent for a moment: the lock
-- timeout keeps a long reader from queueing every ring behind the drop (the prune tries again).
CREATE FUNCTION registry_drop_call_event_days(before timestamptz) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    part record;
    held bigint;
    dropped bigint := 0;
BEGIN
    PERFORM set_config('lock_timeout', '1s', true);
    FOR part IN SELECT * FROM registry_day_partitions_before('call_events', before) LOOP
        EXECUTE format('SELECT count(*) FROM %I', part.name) INTO held;
        EXECUTE format('DROP TABLE %I', part.name);
        dropped := dropped + held;
    END LOOP;
    RETURN dropped;
END $$;

-- The table itself. The primary key must hold the partition key, so an id is no longer unique
-- by index: an id may have one row per 24 h dedupe window (a later post of the same id is a new
-- call, whose row sits beside the old one's history), and claims of one id are serialised by an
-- advisory lock on it instead (claim_call_event below; the group commit takes the same key).
ALTER TABLE call_events RENAME TO call_events_unpartitioned;
ALTER INDEX call_events_created_at RENAME TO call_events_unpartitioned_created_at;
ALTER TABLE call_events_unpartitioned RENAME CONSTRAINT call_events_pkey TO call_events_unpartitioned_pkey;

CREATE TABLE call_events (
    id          text NOT NULL CHECK (octet_length(id) BETWEEN 1 AND 255),
    digest      text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    type        text NOT NULL,
    state       text NOT NULL CHECK (state IN ('running', 'done')),
    deadline    timestamptz NOT NULL,
    result      jsonb CHECK ((state = 'done') = (result IS NOT NULL)),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz CHECK ((state = 'done') = (finished_at IS NOT NULL)),
    job_id      uuid,
    lease_until timestamptz,
    PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

CREATE TABLE call_events_default PARTITION OF call_events DEFAULT;

-- The days the existing events fall on, and the week ahead, then the events themselves.
SELECT registry_add_day_partitions(
    'call_events', 'created_at',
    least((now() AT TIME ZONE 'UTC')::date, (SELECT min(created_at AT TIME ZONE 'UTC')::date FROM call_events_unpartitioned)),
    (now() AT TIME ZONE 'UTC')::date + 7);

INSERT INTO call_events (id, digest, type, state, deadline, result, created_at, finished_at, job_id, lease_until)
SELECT id, digest, type, state, deadline, result, created_at, finished_at, job_id, lease_until
  FROM call_events_unpartitioned;

DROP TABLE call_events_unpartitioned;

-- Claims the id of a call event (one statement, so a ring's claim can share a group commit):
-- inserts it `running` with a lease (or `done`, naming `job`, for one sent as a push job); or
-- takes over the same event whose poster stopped renewing its lease before the deadline; or
-- returns the row that holds the id within the dedupe window, with `claimed` false. The
-- advisory lock on the id serialises claims across instances; every statement of a function
-- sees what committed before it, so the claim after a lock wait sees the winner's row.
CREATE FUNCTION claim_call_event(
    event_id text, event_digest text, event_type text, event_deadline timestamptz, dedupe_seconds integer,
    job uuid, lease_seconds integer)
    RETURNS TABLE (
        claimed boolean, id text, digest text, type text, state text, deadline timestamptz, result jsonb,
        job_id uuid, created_at timestamptz, finished_at timestamptz, lease_until timestamptz)
    LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    held call_events;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('call_event:' || event_id, 0));
    SELECT * INTO held FROM call_events e
     WHERE e.id = event_id AND e.created_at > clock_timestamp() - make_interval(secs => dedupe_seconds)
     ORDER BY e.created_at DESC LIMIT 1;
    IF NOT FOUND THEN
        INSERT INTO call_events (id, digest, type, state, deadline, result, job_id, created_at, finished_at, lease_until)
        VALUES (event_id, event_digest, event_type, CASE WHEN job IS NULL THEN 'running' ELSE 'done' END,
                event_deadline, CASE WHEN job IS NOT NULL THEN '[]'::jsonb END, job, clock_timestamp(),
                CASE WHEN job IS NOT NULL THEN clock_timestamp() END,
                CASE WHEN job IS NULL THEN clock_timestamp() + make_interval(secs => lease_seconds) END)
        RETURNING * INTO held;
        claimed := true;
    ELSIF job IS NULL AND held.digest = event_digest AND held.state = 'running' AND held.job_id IS NULL
          AND held.lease_until < clock_timestamp() AND held.deadline > clock_timestamp() THEN
        -- Its poster died before writing results: this poster sends it, in the first claim's window.
        UPDATE call_events e SET lease_until = clock_timestamp() + make_interval(secs => lease_seconds)
         WHERE e.id = held.id AND e.created_at = held.created_at
        RETURNING * INTO held;
        claimed := true;
    ELSE
        claimed := false;
    END IF;
    RETURN QUERY SELECT claimed, held.id, held.digest, held.type, held.state, held.deadline, held.result,
                        held.job_id, held.created_at, held.finished_at, held.lease_until;
END $$;
