-- `scripts/bench scale`'s listing: GET /v1/users/s-N/devices for random users of the loaded ones.
-- Arguments: the admin key, the number of users.
local users

function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  users = tonumber(args[2])
  math.randomseed(os.time() * 100 + math.random(1000))
end

function request()
  return wrk.format("GET", "/v1/users/s-" .. math.random(0, users - 1) .. "/devices", nil, nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write, e.timeout))
end
