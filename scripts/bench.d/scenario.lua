-- wrk script for scripts/bench. Arguments after `--`: SCENARIO KEY RUN_ID
--   new      POST /v1/devices, every request a token never seen before
--   reregister  POST /v1/devices, random picks from the pre-registered pool "b" (mostly unchanged)
--   list     GET /v1/users/c-user/devices (a user with 10 devices)
--   mix      70% register / 20% list / 10% unregister over the pre-registered pool "d"
--   readmix  70% list / 20% register / 10% unregister over pool "d" (scripts/bench replica)
-- Pools: token i of pool P is P followed by i in hex, 64 characters; it belongs to user
-- P-user-(i % 1000). scripts/bench pre-registers pools b and d with the same rule.
-- Errors are counted by wrk itself (status > 399, socket errors); done() prints them on one line,
-- so no response() hook slows the client down.

local POOL = 10000
local USERS = 1000
local threads = {}
local counter = 0
local list_request
-- `tid` is a global set by setup() in each thread's own Lua state.

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local function pool_token(pool, i)
  return pool .. string.format("%063x", i)
end

local function pool_user(pool, i)
  return pool .. "-user-" .. (i % USERS)
end

local function register_body(user, token)
  return '{"user_id":"' .. user .. '","provider":"ios","type":"apns","token":"' .. token .. '"}'
end

function init(args)
  scenario, run_id = args[1], args[3]
  wrk.headers["Authorization"] = "Bearer " .. args[2]
  wrk.headers["Content-Type"] = "application/json"
  math.randomseed(os.time() * 100 + tid)
  if scenario == "list" then
    list_request = wrk.format("GET", "/v1/users/c-user/devices", nil, nil)
  elseif scenario ~= "new" and scenario ~= "reregister" and scenario ~= "mix" and scenario ~= "readmix" then
    error("unknown scenario " .. tostring(scenario))
  end
end

local function new_registration()
  counter = counter + 1
  -- run id (hex) + thread + counter: unique across threads and across runs on one database.
  local token = string.format("a%s%06x%024x", run_id, tid, counter)
  token = token .. string.rep("0", 64 - #token)
  return wrk.format("POST", "/v1/devices", nil, register_body("a-" .. run_id .. "-" .. tid .. "-" .. counter, token))
end

local function pool_registration(pool)
  local i = math.random(0, POOL - 1)
  return wrk.format("POST", "/v1/devices", nil, register_body(pool_user(pool, i), pool_token(pool, i)))
end

local function mixed()
  local r = math.random(1, 10)
  if r <= 7 then return pool_registration("d") end
  local i = math.random(0, POOL - 1)
  if r <= 9 then return wrk.format("GET", "/v1/users/" .. pool_user("d", i) .. "/devices", nil, nil) end
  return wrk.format("DELETE", "/v1/users/" .. pool_user("d", i) .. "/devices/" .. pool_token("d", i) .. "?provider=ios", nil, nil)
end

-- Reads send no consistency token: what the replica carries is what per-user commit positions
-- leave it while 30% of requests write.
local function read_mostly()
  local r = math.random(1, 10)
  local i = math.random(0, POOL - 1)
  if r <= 7 then return wrk.format("GET", "/v1/users/" .. pool_user("d", i) .. "/devices", nil, nil) end
  if r <= 9 then return pool_registration("d") end
  return wrk.format("DELETE", "/v1/users/" .. pool_user("d", i) .. "/devices/" .. pool_token("d", i) .. "?provider=ios", nil, nil)
end

local generators = {
  new = new_registration,
  reregister = function() return pool_registration("b") end,
  list = function() return list_request end,
  mix = mixed,
  readmix = read_mostly,
}

function request() return generators[scenario]() end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write, e.timeout))
end
