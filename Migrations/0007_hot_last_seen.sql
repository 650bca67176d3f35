-- A re-registration (every app launch) is the most frequent write, and it moves only
-- last_seen_at. While an index covered that column, each one was a non-HOT update: a new row
-- version elsewhere plus an entry in every index. Without one, PostgreSQL updates the row within
-- its page (HOT) and touches no index. A user's devices are capped and few, so sorting them by
-- last_seen_at after an index lookup on user_id costs less than keeping the order indexed; the
-- prune walks the table in id order instead of by age. On an existing large table, building the
-- new index holds off writes for a few seconds per million rows: migrate at a quiet moment.
DROP INDEX devices_user_last_seen;
DROP INDEX devices_last_seen;
CREATE INDEX devices_user ON devices (user_id);
-- Room in each page for the new versions of its rows, so a HOT update rarely has to move one.
ALTER TABLE devices SET (fillfactor = 85);
