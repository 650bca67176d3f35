#!/usr/bin/env bash
# `scripts/bench push` (issue 13): the send API against `device-registry mock-push` (APNs over TLS
# and HTTP/2 on loopback). Not a test: it prints figures and never asserts.
#   (1) BENCH_CONNECTIONS (64) concurrent POST /v1/push, each to one user's one VoIP device (wrk):
#       pushes/s, p50/p99 of the send API, the service's peak RSS
#   (2) h2load posting the same APNs request straight to the same mock: the box's limit
#   (3) aioapns (PyPI, in .venv) sending the same payloads to the same mock, 64 at once
#   (4) fan-out: one POST /v1/push to 1,000 users × 2 devices
# Environment: BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_AIOAPNS_PUSHES=20000.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
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
bin=$(registry_binary release)
data=$PWD/.data/bench-push-$$
tmp=$(mktemp -d)
service_pid= mock_pid=
cleanup() {
  for pid in $service_pid $mock_pid; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  stop_cluster "$data"
  rm -rf "$data" "$tmp"
}
trap cleanup EXIT

# A throwaway CA, a certificate for localhost, and the APNs key the mock accepts.
p256=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${p256[@]}" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 2 -subj /CN=bench-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req "${p256[@]}" -keyout "$tmp/server.key" -out "$tmp/server.csr" -subj /CN=localhost 2>/dev/null
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -out "$tmp/server.pem" -days 2 \
  -extfile <(echo subjectAltName=DNS:localhost,IP:127.0.0.1) 2>/dev/null
for name in AuthKey H2Key AioKey; do
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/$name.p8"
done

mock_port=$(free_port)
"$bin" mock-push --port "$mock_port" --certificate "$tmp/server.pem" --private-key "$tmp/server.key" \
  --apns-key "$team:$kid:$tmp/AuthKey.p8" --apns-key "$team:$h2_kid:$tmp/H2Key.p8" \
  --apns-key "$team:$aio_kid:$tmp/AioKey.p8" >"$tmp/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/mock.log" && break; sleep 0.1; done

pg_port=$(free_port)
start_cluster "$data" "$pg_port"
DATABASE_URL=$(fresh_database "$pg_port" device_registry)
PORT=$(free_port)
admin=drk_$(openssl rand 32 | basenc --base64url | tr -d '=\n')
REGISTRY_MASTER_KEY=$(openssl rand 32 | basenc --base64url | tr -d '=\n')
PUSH_CA_FILE=$tmp/ca.pem
export DATABASE_URL PORT REGISTRY_MASTER_KEY PUSH_CA_FILE
base=http://127.0.0.1:$PORT
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
echo "== $bin; mock APNs over TLS on https://localhost:$mock_port"

# (1) The send API.
wrk -t"$threads" -c"$connections" -d2s -s "$here/push.lua" "$base" -- "$admin" bench-user >/dev/null
output=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$here/push.lua" "$base" -- "$admin" bench-user)
line=$(grep '^BENCH ' <<<"$output") || { echo "$output" >&2; exit 1; }
declare -A f=()
for pair in ${line#BENCH }; do f[${pair%%=*}]=${pair#*=}; done
api_rps=$(awk -v r="${f[requests]}" -v d="${f[duration_us]}" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
rss_mib=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$service_pid/status")
printf '(1) POST /v1/push, %d concurrent: %s pushes/s, p50 %.1f ms, p99 %.1f ms, errors %d, peak RSS %s MiB\n' \
  "$connections" "$api_rps" "$(awk -v v="${f[p50_us]}" 'BEGIN { print v / 1000 }')" \
  "$(awk -v v="${f[p99_us]}" 'BEGIN { print v / 1000 }')" \
  $((f[status_errors] + f[socket_errors] + f[timeouts])) "$rss_mib"

# (2) h2load: the same request straight to the mock (4 connections × 64 streams).
jwt=$(.venv/bin/python "$here/push_tools.py" jwt "$tmp/H2Key.p8" "$team" "$h2_kid")
echo '{"aps":{},"call_id":"bench"}' >"$tmp/payload.json"
h2=$(h2load -D "$seconds" -c 4 -m 64 -d "$tmp/payload.json" -H "authorization: bearer $jwt" \
  -H 'apns-push-type: voip' -H 'apns-topic: com.example.app.voip' -H 'apns-priority: 10' \
  -H 'content-type: application/json' "https://localhost:$mock_port/3/device/$token" 2>&1)
h2_rps=$(grep -o 'finished in [^,]*, [0-9.]* req/s' <<<"$h2" | awk '{ print $(NF - 1) }')
echo "(2) h2load straight to the mock: ${h2_rps:-?} requests/s ($(grep -o '^status codes: [0-9]* 2xx' <<<"$h2"))"

# (3) aioapns.
aio=$(timeout 120 .venv/bin/python "$here/push_tools.py" aioapns "$mock_port" "$tmp/ca.pem" \
  "$tmp/AioKey.p8" "$team" "$aio_kid" "$token" "$aioapns_pushes" 64 2>"$tmp/aioapns.log") || true
read -r aio_rps aio_failures <<<"${aio:-0 -}"
if [[ $aio_rps == 0 ]]; then
  echo "(3) aioapns: did not complete ($(grep -m1 -o '[A-Za-z]*Exceeded\|ConnectionClosed\|Error[^ ]*' "$tmp/aioapns.log"))"
else
  echo "(3) aioapns, 64 at once: $aio_rps pushes/s ($aio_failures failed)"
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
  -v s="$fan_seconds" 'BEGIN { printf "%.0f", n / s }') pushes/s"

awk -v a="$api_rps" -v h="${h2_rps:-0}" -v p="${aio_rps:-0}" 'BEGIN {
  printf "== send API / h2load = %.2f (target ≥ 0.5); send API / aioapns = %.2f (target ≥ 3)\n",
    (h > 0 ? a / h : 0), (p > 0 ? a / p : 0) }'
