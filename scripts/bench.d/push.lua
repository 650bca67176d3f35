-- wrk script for `scripts/bench push`. Arguments after `--`: KEY USER
-- Every request is the same POST /v1/push to one user's one VoIP device; done() prints one line.

function init(args)
  wrk.method = "POST"
  wrk.path = "/v1/push"
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  wrk.headers["Content-Type"] = "application/json"
  wrk.body = '{"user_ids":["' .. args[2] .. '"],"apns":{"push_type":"voip","priority":10,"expiration":"30s",'
    .. '"payload":{"aps":{},"call_id":"bench"}},"deadline":"10s"}'
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write, e.timeout))
end
