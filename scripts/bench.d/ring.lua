-- wrk script for `scripts/bench ring`. Arguments after `--`: FILE THREADS. FILE holds pre-signed DialStack
-- webhooks, one per line as "<X-DialStack-Signature>\t<body>", each with its own event id (a
-- repeated id would be a duplicate, which rings nothing). Threads take alternate lines, so no
-- two requests share an id; done() prints one line.

local started = 0

function setup(thread)
  thread:set("offset", started)
  started = started + 1
end

function init(args)
  lines = {}
  for line in io.lines(args[1]) do lines[#lines + 1] = line end
  stride = tonumber(args[2])
  index = offset + 1
end

function request()
  local line = lines[index] or error("out of pre-signed webhooks: generate more")
  index = index + stride
  local tab = line:find("\t", 1, true)
  return wrk.format("POST", "/v1/webhooks/dialstack",
    { ["Content-Type"] = "application/json", ["X-DialStack-Signature"] = line:sub(1, tab - 1) },
    line:sub(tab + 1))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d status_errors=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write, e.timeout))
end
