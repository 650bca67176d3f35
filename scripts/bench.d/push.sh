#!/usr/bin/env bash
# `scripts/bench push` (issues 13, 24): the send API against the push sink (APNs over TLS and
# HTTP/2 on loopback: h2o by default, `mock-push` with BENCH_SINK=mock; scripts/bench.d/h2o_sink.sh).
# Not a test: it prints figures and never asserts.
#   (1) BENCH_CONNECTIONS (64) concurrent POST /v1/push, each to one user's one VoIP device (wrk):
#       pushes/s, p50/p99 of the send API, the service's peak RSS
#   (2) h2load posting the same APNs request straight to the same sink: the box's limit
#   (3) aioapns (PyPI, in .venv) sending the same payloads to the same sink, 64 at once
#   (4) fan-out: one POST /v1/push to 1,000 users × 2 devices
# Each of (1)–(3) also prints the CPU time per push of the sender (the service, h2load, aioapns)
# and of the sink (and PostgreSQL for (1)): on a shared machine pushes/s is whatever share of the
# cores the other processes leave, and CPU per push is the figure that holds still. The sink runs
# on the same cores, so it bounds every ratio: roughly (sender's + sink's µs per push) of one over
# the other's; h2o keeps that bound far away, the mock does not.
# Environment: BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_AIOAPNS_PUSHES=20000;
# BENCH_BINARY=PATH runs that build of device-registry instead of building one (to compare two
# builds back to back); BENCH_PERF=FILE records the service with `perf record -g` into FILE
# during (1); BENCH_ONLY_API=1 stops after (1) and (2).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
source scripts/bench.d/mock_setup.sh
source scripts/bench.d/h2o_sink.sh
ensure_packages wrk nghttp2-client python3-venv time

seconds=${BENCH_SECONDS:-20}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
aioapns_pushes=${BENCH_AIOAPNS_PUSHES:-20000}
export LOG_LEVEL=${LOG_LEVEL:-warning}
here=scripts/bench.d
# One APNs key each for the service, h2load and aioapns: the mock, like APNs, refuses a second
# provider token for one key within 20 minutes (TooManyProviderTokenUpdates).
team=ABCDE12345 kid=XYZ987WVU6 h2_kid=H2LOAD0001 aio_kid=AIOAPNS001

if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import aioapns, jwt' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check aioapns >&2
fi
bin=${BENCH_BINARY:-$(registry_binary release)}
bench_scratch push

# The sink's certificates, and the APNs keys the mock accepts.
make_mock_certificates
for name in AuthKey H2Key AioKey; do
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/$name.p8"
done

mock_port=$(free_port)
start_sink --apns-key "$team:$kid:$tmp/AuthKey.p8" --apns-key "$team:$h2_kid:$tmp/H2Key.p8" \
  --apns-key "$team:$aio_kid:$tmp/AioKey.p8"

service_environment
REGISTRY_ADMIN_KEY=$admin "$bin" serve >"$tmp/service.log" 2>&1 &
service_pid=$!
wait_ready "$base" 60

api() { curl -sf -X "$1" "$base$2" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d @-; }
python3 -c 'import json, sys; print(json.dumps({"service": "apns", "topic": "com.example.app", "endpoint": sys.argv[1],
  "credentials": {"team_id": sys.argv[2], "key_id": sys.argv[3], "private_key": open(sys.argv[4]).read()}}))' \
  "https://localhost:$mock_port" "$team" "$kid" "$tmp/AuthKey.p8" | api PUT /v1/providers/ios >/dev/null
token=$(printf 'c%063x' 1)
echo "{\"user_id\":\"bench-user\",\"provider\":\"ios\",\"type\":\"voip\",\"token\":\"$token\"}" |
  api POST /v1/devices >/dev/null
first=$(echo '{"user_ids":["bench-user"],"apns":{"push_type":"voip","payload":{"aps":{}}}}' | api POST /v1/push)
grep -q '"status":"sent"' <<<"$first" || { echo "the first push was not sent: $first" >&2; exit 1; }

echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
echo "== $bin; $sink sink, APNs over TLS on https://localhost:$mock_port"

# (1) The send API.
wrk -t"$threads" -c"$connections" -d2s -s "$here/push.lua" "$base" -- "$admin" bench-user >/dev/null
service_before=$(ticks_of "$service_pid") mock_before=$(ticks_of "$mock_pid") postgres_before=$(postgres_ticks)
sink_calls_before=$(syscalls_of "$mock_pid")
if [[ -n ${BENCH_PERF:-} ]]; then
  perf record -q -g -o "$BENCH_PERF" -p "$service_pid" 2>/dev/null &
  perf_pid=$!
fi
output=$(/usr/bin/time -f 'CPU %U %S' wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$here/push.lua" "$base" \
  -- "$admin" bench-user 2>&1)
[[ -n ${BENCH_PERF:-} ]] && kill -INT "$perf_pid" && wait "$perf_pid" || true
service_ticks=$(($(ticks_of "$service_pid") - service_before)) mock_ticks=$(($(ticks_of "$mock_pid") - mock_before))
sink_calls=$(($(syscalls_of "$mock_pid") - sink_calls_before))
postgres_ticks=$(($(postgres_ticks) - postgres_before))
line=$(grep '^BENCH ' <<<"$output") || { echo "$output" >&2; exit 1; }
declare -A f=()
for pair in ${line#BENCH }; do f[${pair%%=*}]=${pair#*=}; done
api_rps=$(awk -v r="${f[requests]}" -v d="${f[duration_us]}" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
api_p50=$(awk -v v="${f[p50_us]}" 'BEGIN { printf "%.1f", v / 1000 }')
api_p99=$(awk -v v="${f[p99_us]}" 'BEGIN { printf "%.1f", v / 1000 }')
api_errors=$((f[status_errors] + f[socket_errors] + f[timeouts]))
rss_mib=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$service_pid/status")
wrk_cpu=$(awk -v n="${f[requests]}" '/^CPU / { printf "%.0f", ($2 + $3) / n * 1e6 }' <<<"$output")
api_cpu=$(($(us "$service_ticks" "${f[requests]}") + $(us "$mock_ticks" "${f[requests]}") + \
  $(us "$postgres_ticks" "${f[requests]}") + wrk_cpu))
echo "(1) POST /v1/push, $connections concurrent: $api_rps pushes/s, p50 $api_p50 ms, p99 $api_p99 ms," \
  "errors $api_errors, peak RSS $rss_mib MiB; CPU µs per push: service $(us "$service_ticks" "${f[requests]}")," \
  "postgres $(us "$postgres_ticks" "${f[requests]}"), $sink $(us "$mock_ticks" "${f[requests]}"), wrk $wrk_cpu;" \
  "$sink system calls per 100 pushes $(per100 "$sink_calls" "${f[requests]}"); $(load)"

# (2) h2load: the same request straight to the sink (4 connections × 64 streams).
jwt=$(.venv/bin/python "$here/push_tools.py" jwt "$tmp/H2Key.p8" "$team" "$h2_kid")
echo '{"aps":{},"call_id":"bench"}' >"$tmp/payload.json"
echo -n "(2) " && h2load_sink "$seconds" "/3/device/$token" -H "authorization: bearer $jwt" \
  -H 'apns-push-type: voip' -H 'apns-topic: com.example.app.voip' -H 'apns-priority: 10' -H 'content-type: application/json'
h2_total_cpu=$((h2_cpu + h2_sink_cpu))
[[ -n ${BENCH_ONLY_API:-} ]] && exit 0

# (3) aioapns.
mock_before=$(ticks_of "$mock_pid")
aio=$(timeout 120 .venv/bin/python "$here/push_tools.py" aioapns "$mock_port" "$tmp/ca.pem" \
  "$tmp/AioKey.p8" "$team" "$aio_kid" "$token" "$aioapns_pushes" 64 2>"$tmp/aioapns.log") || true
mock_ticks=$(($(ticks_of "$mock_pid") - mock_before))
read -r aio_rps aio_failures aio_cpu <<<"${aio:-0 - 0}"
aio_mock_cpu=$(us "$mock_ticks" $((aioapns_pushes + (aioapns_pushes < 200 ? aioapns_pushes : 200))))  # + its warm-up
aio_total_cpu=$((aio_cpu + aio_mock_cpu))
if [[ $aio_rps == 0 ]]; then
  echo "(3) aioapns: did not complete ($(grep -m1 -o '[A-Za-z]*Exceeded\|ConnectionClosed\|Error[^ ]*' "$tmp/aioapns.log"))"
else
  echo "(3) aioapns, 64 at once: $aio_rps pushes/s ($aio_failures failed); CPU µs per push: aioapns $aio_cpu," \
    "$sink $aio_mock_cpu; $(load)"
fi

# (4) Fan-out: 1,000 users × 2 devices in one request.
for first_user in 0 500; do
  .venv/bin/python "$here/push_tools.py" batch fan "$first_user" 500 | api POST /v1/devices/batch >/dev/null
done
.venv/bin/python "$here/push_tools.py" fanout fan 1000 >"$tmp/fanout.json"
fan_seconds=$( { /usr/bin/time -f '%e' curl -sf -o "$tmp/fanout.out" -X POST "$base/v1/push" \
  -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d @"$tmp/fanout.json"; } 2>&1)
fan_sent=$(grep -o '"status":"sent"' "$tmp/fanout.out" | wc -l)
echo "(4) fan-out to 1,000 users × 2 devices: $fan_sent sent in $fan_seconds s → $(awk -v n="$fan_sent" \
  -v s="$fan_seconds" 'BEGIN { printf "%.0f", n / s }') pushes/s; $(load)"

echo
echo "DeviceRegistry push bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $sink sink, $(uptime | sed 's/.*load average/load average/')"
# The second column divides the CPU per push of the whole run instead (sender, sink and, for
# the send API, PostgreSQL and wrk): what the ratio would be had each phase got the same share of
# the cores, which on a shared machine they do not.
awk -v a="$api_rps" -v h="${h2_rps:-0}" -v p="${aio_rps:-0}" -v p99="$api_p99" -v rss="$rss_mib" \
  -v ac="$api_cpu" -v hc="$h2_total_cpu" -v pc="$aio_total_cpu" 'BEGIN {
  printf "%-20s %8s %8s   %s\n", "", "pushes/s", "CPU/push", "target"
  printf "%-20s %8.2f %8.2f   ≥ 0.5\n", "send API / h2load", (h > 0 ? a / h : 0), (hc > 0 ? hc / ac : 0)
  printf "%-20s %8.2f %8.2f   ≥ 3\n", "send API / aioapns", (p > 0 ? a / p : 0), (pc > 0 && p > 0 ? pc / ac : 0)
  printf "%-20s %8.1f %8s   ≤ 15\n", "send API p99, ms", p99, ""
  printf "%-20s %8.1f %8s   ≤ 96\n", "service RSS, MiB", rss, "" }'
