-- wrk script for scripts/bench replica. Arguments after `--`: KEY
-- A steady 70/20/10 mix over the pre-registered pool "d" (scripts/bench.d/preload.py): 70% list a
-- user's devices, 20% register (re-register) a token, 10% unregister one. Token i of the pool
-- belongs to user d-user-(i % 1000). Reads send no consistency token: what the replica carries
-- here is what per-user commit positions leave it while 30% of requests write.
local POOL = 10000
local USERS = 1000
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local function token(i) return "d" .. string.format("%063x", i) end
local function user(i) return "d-user-" .. (i % USERS) end

function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  wrk.headers["Content-Type"] = "application/json"
  math.randomseed(os.time() * 100 + tid)
end

function request()
  local r = math.random(1, 10)
  local i = math.random(0, POOL - 1)
  if r <= 7 then return wrk.format("GET", "/v1/users/" .. user(i) .. "/devices", nil, nil) end
  if r <= 9 then
    local body = '{"user_id":"' .. user(i) .. '","provider":"ios","type":"apns","token":"' .. token(i) .. '"}'
    return wrk.format("POST", "/v1/devices", nil, body)
  end
  return wrk.format("DELETE", "/v1/users/" .. user(i) .. "/devices/" .. token(i) .. "?provider=ios", nil, nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write, e.timeout))
end
