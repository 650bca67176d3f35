#!/usr/bin/env bash
# `scripts/bench ring` (issue 14): DialStack webhooks in, VoIP pushes out, against
# `mock-push` (APNs over TLS and HTTP/2 on loopback). Not a test: it prints figures
# and never asserts. Every webhook is a new `call.mobile_push_wakeup` for one user with one VoIP
# device, so each one claims its event id, sends one push and records the result.
#   (1) BENCH_RING_RATE (200) webhooks/s, open loop, for BENCH_SECONDS: p50/p99 from each webhook's
#       scheduled start to its 200, which comes after the mock accepted the push (webhook in →
#       push out and acknowledged)
#   (2) BENCH_CONNECTIONS (64) concurrent webhooks, closed loop (wrk): rings/s
# Environment: BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_RING_RATE=200;
# BENCH_BINARY=PATH runs that build of device-registry instead of building one (A/B pairs).
# PG_WAL_IN_MEMORY=1 (here and in `scripts/bench fanout`) puts the cluster's WAL on tmpfs: every
# commit still waits for its flush, which costs nothing there, so the figures show what the
# service does without this machine's disk; (1) prints the disk's fdatasync times beside them.
#
# `scripts/bench ring --faults` (issue 23) instead: the service reaches the mock through the
# mock's fault proxy (`mock-push --fault-proxy-port`), which black-holes the open connection every
# BENCH_FAULT_EVERY (10) s (SIGUSR1) while webhooks come at BENCH_RING_RATE/s for BENCH_SECONDS (60),
# each with `ringing_at` = its scheduled start and the default 30 s ttl; it prints rings sent, lost
# (never accepted by the mock), late (accepted after ringing_at + ttl), doubled (accepted twice),
# and p50/p99 from ringing_at to the mock's accept.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
source scripts/bench.d/mock_setup.sh
ensure_packages wrk time

faults= seconds=${BENCH_SECONDS:-20}
if [[ ${1:-} == --faults ]]; then faults=1 seconds=${BENCH_SECONDS:-60}; fi
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
rate=${BENCH_RING_RATE:-200}
export LOG_LEVEL=${LOG_LEVEL:-warning}
here=scripts/bench.d
team=ABCDE12345 kid=XYZ987WVU6

bin=${BENCH_BINARY:-$(registry_binary release)}
bench_scratch ring

# The mock's certificates, and the APNs key the mock accepts.
make_mock_certificates
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/AuthKey.p8"

mock_port=$(free_port) endpoint_port=
if [[ -n $faults ]]; then
  endpoint_port=$(free_port)
  start_mock_push --apns-key "$team:$kid:$tmp/AuthKey.p8" --fault-proxy-port "$endpoint_port"
  for _ in $(seq 100); do grep -q 'fault proxy listening' "$tmp/mock.log" && break; sleep 0.1; done
else
  start_mock_push --apns-key "$team:$kid:$tmp/AuthKey.p8"
fi

service_environment
secret=whsec_$(openssl rand -hex 24)
export DIALSTACK_WEBHOOK_SECRET=$secret
REGISTRY_ADMIN_KEY=$admin "$bin" serve >"$tmp/service.log" 2>&1 &
service_pid=$!
wait_ready "$base" 60

api() { curl -sf -X "$1" "$base$2" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d @-; }
python3 -c 'import json, sys; print(json.dumps({"service": "apns", "topic": "com.example.app", "endpoint": sys.argv[1],
  "credentials": {"team_id": sys.argv[2], "key_id": sys.argv[3], "private_key": open(sys.argv[4]).read()}}))' \
  "https://localhost:${endpoint_port:-$mock_port}" "$team" "$kid" "$tmp/AuthKey.p8" | api PUT /v1/providers/ios >/dev/null
echo "{\"user_id\":\"ring-user\",\"provider\":\"ios\",\"type\":\"voip\",\"token\":\"$(printf 'c%063x' 1)\"}" |
  api POST /v1/devices >/dev/null
# One ring first: the APNs connection and provider token are made outside the measurements.
IFS=$'\t' read -r signature body < <(python3 "$here/ring_tools.py" signed "$secret" ring-user 1 first)
first=$(curl -sf -X POST "$base/v1/webhooks/dialstack" -H 'Content-Type: application/json' \
  -H "X-DialStack-Signature: $signature" -d "$body")
grep -q '"status":"sent"' <<<"$first" || { echo "the first ring was not sent: $first" >&2; exit 1; }

echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
echo "== $bin; mock APNs over TLS on https://localhost:$mock_port${faults:+, through its fault proxy on :$endpoint_port}"

if [[ -n $faults ]]; then
  python3 "$here/ring_tools.py" faults "$base" "$secret" ring-user "$rate" "$seconds" "${BENCH_FAULT_EVERY:-10}" \
    "$mock_pid" "https://localhost:$mock_port" "$tmp/ca.pem" "$DATABASE_URL"
  echo "== mock: $(grep -c 'black-holed' "$tmp/mock.log") blackholes, $(grep 'black-holed' "$tmp/mock.log" | tail -n 1)"
  warnings=$(grep -ciE '"level":"(warning|error)"' "$tmp/service.log" || true)
  echo "== service log: $warnings warning/error lines"
  exit 0
fi

# (1) Paced webhooks: latency from webhook in to push out.
read -r rung failed p50 p99 < <(python3 "$here/ring_tools.py" paced "$base" "$secret" ring-user "$rate" "$seconds")
echo "(1) $rate webhooks/s for ${seconds}s: $rung rung, $failed failed; webhook in → push out p50 $p50 ms," \
  "p99 $p99 ms (target p99 ≤ 20 ms)"

# (2) 64 concurrent webhooks, as fast as they are answered.
python3 "$here/ring_tools.py" signed "$secret" ring-user $((6000 * seconds)) "wrk-$$" >"$tmp/signed.tsv"
python3 "$here/ring_tools.py" signed "$secret" ring-user 4000 "warm-$$" >"$tmp/warm.tsv"
wrk -t"$threads" -c"$connections" -d1s -s "$here/ring.lua" "$base" -- "$tmp/warm.tsv" "$threads" >/dev/null
output=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$here/ring.lua" "$base" -- "$tmp/signed.tsv" "$threads")
line=$(grep '^BENCH ' <<<"$output") || { echo "$output" >&2; exit 1; }
declare -A f=()
for pair in ${line#BENCH }; do f[${pair%%=*}]=${pair#*=}; done
sent=$(psql -XtA "$DATABASE_URL" -c "SELECT count(*) FROM call_events
  WHERE id LIKE 'wrk-$$-%' AND result @> '[{\"status\": \"sent\"}]'")
printf '(2) %d concurrent webhooks: %.0f rings/s (%d answered, %d rung at the mock), p50 %.1f ms, p99 %.1f ms, errors %d\n' \
  "$connections" "$(awk -v r="${f[requests]}" -v d="${f[duration_us]}" 'BEGIN { print r / (d / 1e6) }')" \
  "${f[requests]}" "$sent" "$(awk -v v="${f[p50_us]}" 'BEGIN { print v / 1000 }')" \
  "$(awk -v v="${f[p99_us]}" 'BEGIN { print v / 1000 }')" $((f[status_errors] + f[socket_errors] + f[timeouts]))
warnings=$(grep -ciE '"level":"(warning|error)"' "$tmp/service.log" || true)
((warnings == 0)) || { echo "== service log: $warnings warning/error lines, last ones:"; tail -n 3 "$tmp/service.log"; }
