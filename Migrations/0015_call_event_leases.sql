-- A call event sent by its first poster (not as a push job) is claimed with a lease the poster
-- renews while it sends. A poster killed between its claim and its pushes stops renewing, so a
-- redelivery of the same event after `lease_until`, and before the event's `deadline`, takes the
-- event over and rings: without the lease it was answered `duplicate` and nobody rang. NULL for
-- events sent as push jobs (the job has its own lease) and for finished ones.
ALTER TABLE call_events ADD COLUMN lease_until timestamptz;
