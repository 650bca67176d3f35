#!/usr/bin/env bash
# `scripts/bench fanout` (issue 18): one push job to BENCH_FANOUT_DEVICES devices (1,000,000;
# half APNs, half FCM) against the push sink over TLS on loopback (h2o by default, `mock-push` with
# BENCH_SINK=mock; scripts/bench.d/h2o_sink.sh). Not a test: it prints figures and never asserts.
#   (1) accept: the NDJSON body (one user id per line) until 202
#   (2) the job: accept → last push (the job's created_at → finished_at), pushes/s, the
#       service's peak RSS, and every device's outcome counted (sent = total: none lost); CPU µs
#       per push of the service, PostgreSQL and the sink over the job, and beside them h2load
#       posting an APNs request straight to the same sink for BENCH_FANOUT_H2LOAD_SECONDS (10)
#   (3) a synchronous POST /v1/push to one VoIP device, one after another while the job runs:
#       p50/p99 (the ring path beside a job); and, from the job's start, BENCH_RING_RATE (200)
#       signed DialStack webhooks/s for BENCH_FANOUT_RING_SECONDS (15), open loop (ring_tools.py
#       `paced`, as `scripts/bench scale` sends them): p50/p99 webhook scheduled → its answer and,
#       with the h2o sink, → its push at the sink (the sink logs the ringer's pushes). Their CPU
#       falls in (2)'s figures: BENCH_FANOUT_RING_SECONDS=0 leaves them out
#   (4) kill -9: a second job, to the FCM half of BENCH_FANOUT_CRASH_DEVICES (200,000) more
#       devices, the service killed a third of the way, started again: restart → ready, and kill → the job moving again
#       (a dead instance's lease runs out), and whether it finished with every device sent.
# Environment: BENCH_FANOUT_DEVICES=1000000 BENCH_FANOUT_CRASH_DEVICES=200000 (0 skips (4));
# PUSH_JOB_* pass through. BENCH_BINARY=PATH runs that build of device-registry instead of
# building one (to compare two builds back to back); BENCH_PERF=FILE records the service with
# `perf record -g` into FILE during (2). BENCH_PG_STAT_STATEMENTS=1 loads pg_stat_statements and
# prints, after (2), the statements of the first job (accept to last push) with their calls and
# execution time per push.
# BENCH_FANOUT_KIND=call_event makes the first job a call event instead (`call.live_started`,
# NDJSON to POST /v1/call-events): each device's push composed in its provider's format, the
# VoIP half skipped by the token rule.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
source scripts/bench.d/mock_setup.sh
source scripts/bench.d/h2o_sink.sh
ensure_packages time

devices=${BENCH_FANOUT_DEVICES:-1000000}
crash_devices=${BENCH_FANOUT_CRASH_DEVICES:-200000}
kind=${BENCH_FANOUT_KIND:-push}
[[ $kind == push || $kind == call_event ]] || { echo "BENCH_FANOUT_KIND is push or call_event" >&2; exit 2; }
export LOG_LEVEL=${LOG_LEVEL:-warning}
team=ABCDE12345 kid=XYZ987WVU6
bin=${BENCH_BINARY:-$(registry_binary release)}
bench_scratch fanout

# The sink's certificates, the APNs key and the FCM service account the mock accepts.
make_mock_certificates
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/AuthKey.p8"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/fcm.key" 2>/dev/null

mock_port=$(free_port)
python3 -c 'import json, sys; print(json.dumps({"type": "service_account", "project_id": "bench-project",
  "private_key_id": "k1", "private_key": open(sys.argv[1]).read(), "client_email": "bench@bench-project.iam.gserviceaccount.com",
  "token_uri": sys.argv[2]}))' "$tmp/fcm.key" "https://localhost:$mock_port/token" >"$tmp/account.json"
# The ringer's VoIP token: the sink logs when each ring's push reaches it (h2o_sink.sh).
ring_token=$(printf 'c%063x' 1)
[[ $sink == h2o ]] && sink_ring_token=$ring_token
start_sink --apns-key "$team:$kid:$tmp/AuthKey.p8" --fcm-service-account "$tmp/account.json"

service_environment
if [[ ${BENCH_PG_STAT_STATEMENTS:-} == 1 ]]; then
  psql -qX -h 127.0.0.1 -p "$pg_port" -U postgres -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
  stop_cluster "$data"
  start_cluster "$data" "$pg_port"
  psql -qX -h 127.0.0.1 -p "$pg_port" -U postgres device_registry -c 'CREATE EXTENSION pg_stat_statements'
fi
secret=whsec_$(openssl rand -hex 24)
export REGISTRY_ADMIN_KEY=$admin DIALSTACK_WEBHOOK_SECRET=$secret
start_service() {
  "$bin" serve >>"$tmp/service.log" 2>&1 &
  service_pid=$!
  wait_ready "$base" 60
}
start_service
sql() { psql -qXtA -h 127.0.0.1 -p "$pg_port" -U postgres device_registry -c "$1"; }
api() { curl -sf -X "$1" "$base$2" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' "${@:3}"; }

python3 -c 'import json, sys; print(json.dumps({"service": "apns", "topic": "com.example.app", "endpoint": sys.argv[1],
  "credentials": {"team_id": sys.argv[2], "key_id": sys.argv[3], "private_key": open(sys.argv[4]).read()}}))' \
  "https://localhost:$mock_port" "$team" "$kid" "$tmp/AuthKey.p8" | api PUT /v1/providers/ios -d @- >/dev/null
python3 -c 'import json, sys; print(json.dumps({"service": "fcm", "project_id": "bench-project", "endpoint": sys.argv[1],
  "credentials": {"service_account": json.load(open(sys.argv[2]))}}))' \
  "https://localhost:$mock_port" "$tmp/account.json" | api PUT /v1/providers/android -d @- >/dev/null

# Users fan-0 … fan-N: even ones an APNs (remote) token, odd ones an FCM token; `ringer` one VoIP
# token. A job is never a ring (a voip push job is refused), so followers get alerts.
seed() { # FIRST COUNT
  sql "INSERT INTO devices (provider, token, type, user_id, environment, created_at, updated_at, last_seen_at)
       SELECT CASE WHEN i % 2 = 0 THEN 'ios' ELSE 'android' END,
              CASE WHEN i % 2 = 0 THEN lpad(to_hex(i + 4096), 64, '0') ELSE 'fcm-token:' || i END,
              CASE WHEN i % 2 = 0 THEN 'apns' ELSE 'fcm' END, 'fan-' || i,
              CASE WHEN i % 2 = 0 THEN 'production' END, now(), now(), now()
         FROM generate_series($1, $1 + $2 - 1) AS i"
}
seed 0 "$devices"
seed "$devices" "$crash_devices"
echo "{\"user_id\":\"ringer\",\"provider\":\"ios\",\"type\":\"voip\",\"token\":\"$ring_token\"}" |
  api POST /v1/devices -d @- >/dev/null
ring='{"user_ids":["ringer"],"apns":{"push_type":"voip","priority":10,"payload":{"aps":{},"call_id":"c1"}}}'
api POST /v1/push -d "$ring" | grep -q '"status":"sent"' || { echo "the first ring was not sent" >&2; exit 1; }

# body FIRST COUNT FILE [FILTER]: the NDJSON job body; FILTER adds fields to the push, e.g. `"types":["fcm"],`.
body() {
  echo "{${4:-}"'"apns":{"push_type":"alert","priority":10,"payload":{"aps":{"alert":{"title":"Live now"}},"event":"live_started"}},"fcm":{"message":{"data":{"event":"live_started"}}},"deadline":"2h"}' >"$3"
  seq "$1" $(($1 + $2 - 1)) | sed 's/.*/"fan-&"/' >>"$3"
}
# call_event_body FIRST COUNT FILE: a call.live_started for those users, as NDJSON.
call_event_body() {
  echo '{"id":"evt_bench_'"$1"'","type":"call.live_started","ttl":"2h","call":{"id":"townhall","display_name":"All hands"},"caller":{"id":"ceo","display_name":"Dana"}}' >"$3"
  seq "$1" $(($1 + $2 - 1)) | sed 's/.*/"fan-&"/' >>"$3"
}
# post FILE [PATH]: the job's location; the seconds the accept took go to accept.seconds.
post() {
  curl -sf -o "$tmp/accepted.json" -D "$tmp/accepted.headers" -w '%{time_total}' -X POST "$base${2:-/v1/push-jobs}" \
    -H "Authorization: Bearer $admin" -H 'Content-Type: application/x-ndjson' --data-binary @"$1" >"$tmp/accept.seconds"
  grep -i '^location:' "$tmp/accepted.headers" | tr -d '\r' | awk '{ print $2 }'
}
field() { python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1], {}, j))' "$1"; }

echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/'); $bin; $sink sink"
echo "== PUSH_JOB_CONCURRENCY=${PUSH_JOB_CONCURRENCY:-32} PUSH_JOB_BATCH=${PUSH_JOB_BATCH:-500} PUSH_JOB_BATCHES=${PUSH_JOB_BATCHES:-4}; first job: $kind"

# (1) + (2) + (3)
[[ ${BENCH_PG_STAT_STATEMENTS:-} == 1 ]] && sql 'SELECT pg_stat_statements_reset()' >/dev/null
service_before=$(ticks_of "$service_pid") sink_before=$(ticks_of "$mock_pid") postgres_before=$(postgres_ticks)
sink_calls_before=$(syscalls_of "$mock_pid")
if [[ -n ${BENCH_PERF:-} ]]; then
  perf record -q -g -o "$BENCH_PERF" -p "$service_pid" 2>/dev/null &
  perf_pid=$!
fi
if [[ $kind == push ]]; then
  body 0 "$devices" "$tmp/job.ndjson"
  location=$(post "$tmp/job.ndjson")
else
  call_event_body 0 "$devices" "$tmp/job.ndjson"
  location=$(post "$tmp/job.ndjson" /v1/call-events)
fi
ring_seconds=${BENCH_FANOUT_RING_SECONDS:-15} rings_pid=
if ((ring_seconds > 0)); then
  RING_SINK_LOG=${sink_ring_token:+$tmp/sink-rings.log} python3 scripts/bench.d/ring_tools.py paced "$base" "$secret" ringer "${BENCH_RING_RATE:-200}" "$ring_seconds" \
    >"$tmp/rings_during_job" &
  rings_pid=$!
fi
accept_seconds=$(cat "$tmp/accept.seconds")
echo "(1) accepted $devices devices in ${accept_seconds}s ($(wc -c <"$tmp/job.ndjson") bytes of NDJSON)"
# (3)'s synchronous pushes, one after another on one kept-alive connection, the job's status read
# every ten, until it is over: one process for all of them. A curl and an awk per push and a
# python per status read (as before 2026-11-27) cost ~0.4 of the 2 cores during the job, CPU the
# job's own processes then did not get.
python3 - "$base" "$location" "$admin" "$ring" >"$tmp/ring.ms" <<'PY'
import http.client, json, sys, time, urllib.parse
base, location, admin, ring = sys.argv[1:5]
url = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(url.hostname, url.port)
headers = {"Authorization": f"Bearer {admin}", "Content-Type": "application/json"}
def request(method, path, body=None):
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read()
while json.loads(request("GET", location)[1])["status"] in ("queued", "running"):
    for _ in range(10):
        started = time.perf_counter()
        status, _ = request("POST", "/v1/push", ring)
        if status == 200:
            print(f"{(time.perf_counter() - started) * 1000:.3f}")
PY
job=$(api GET "$location")
[[ -n ${BENCH_PERF:-} ]] && kill -INT "$perf_pid" && wait "$perf_pid" || true
service_ticks=$(($(ticks_of "$service_pid") - service_before)) sink_ticks=$(($(ticks_of "$mock_pid") - sink_before))
sink_calls=$(($(syscalls_of "$mock_pid") - sink_calls_before))
postgres_ticks=$(($(postgres_ticks) - postgres_before))
rss_mib=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$service_pid/status")
python3 - "$job" "$devices" "$rss_mib" "$kind" <<'PY'
import json, sys
from datetime import datetime
job, devices, rss, kind = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
# A live_started never reaches a VoIP token: that half is skipped.
expected = devices if kind == "push" else devices // 2
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
seconds = (t(job["finished_at"]) - t(job["created_at"])).total_seconds()
c = job["counts"]
print(f"(2) job {job['status']}: {c['sent']} of {job['total']} sent in {seconds:.1f}s accept → last push"
      f" → {c['sent'] / seconds:.0f} pushes/s; counts {c}; peak RSS {rss} MiB"
      f"; {'none lost' if c['sent'] == expected and c['sent'] + c['skipped'] == devices else 'NOT ALL SENT'}")
PY
# The rings sent during the job count as pushes too (the service and PostgreSQL also answered
# the status polls: a few hundred requests beside the job's pushes).
pushes=$(($(field 'counts["sent"]' <<<"$job") + $(wc -l <"$tmp/ring.ms")))
echo "    CPU µs per push: service $(us "$service_ticks" "$pushes"), postgres $(us "$postgres_ticks" "$pushes")," \
  "$sink $(us "$sink_ticks" "$pushes"); $sink system calls per 100 pushes $(per100 "$sink_calls" "$pushes"); $(load)"
if [[ ${BENCH_PG_STAT_STATEMENTS:-} == 1 ]]; then
  psql -X -h 127.0.0.1 -p "$pg_port" -U postgres device_registry -c "
    SELECT calls, round((calls / $pushes::numeric), 4) AS per_push, round(total_exec_time::numeric) AS total_ms,
           round((total_exec_time * 1000 / $pushes)::numeric, 1) AS us_per_push, rows,
           left(regexp_replace(query, '\s+', ' ', 'g'), 100) AS query
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     ORDER BY total_exec_time DESC LIMIT 15"
fi
echo '{"aps":{"alert":{"title":"Live now"}},"event":"live_started"}' >"$tmp/payload.json"
# The mock checks APNs provider tokens (and refuses a second one per key within 20 minutes): h2load
# goes to h2o only.
[[ $sink == h2o ]] && echo -n "    beside it, " && h2load_sink "${BENCH_FANOUT_H2LOAD_SECONDS:-10}" "/3/device/$(printf '%064x' 4096)" \
  -H 'apns-push-type: alert' -H 'apns-topic: com.example.app' -H 'apns-priority: 10' -H 'content-type: application/json'
sort -n "$tmp/ring.ms" | awk '{ v[NR] = $1 } END {
  if (NR == 0) { print "(3) no synchronous push measured"; exit }
  printf "(3) synchronous push during the job: %d pushes, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
    NR, v[int(NR * 0.5) + 1], v[int(NR * 0.99) + 1], v[NR] }'
if [[ -n $rings_pid ]]; then
  wait "$rings_pid"
  read -r rung ring_failed ring_p50 ring_p99 <"$tmp/rings_during_job"
  # A webhook is answered once its pushes are out, its results recorded moments after: any left
  # unrecorded 5 s after the last answer?
  for _ in $(seq 50); do
    unrecorded=$(sql "SELECT count(*) FROM call_events WHERE id LIKE 'paced-%' AND state <> 'done'")
    ((unrecorded == 0)) && break
    sleep 0.1
  done
  echo "(3) ${BENCH_RING_RATE:-200} rings/s for ${ring_seconds}s from the job's start: $rung rung, $ring_failed failed," \
    "$unrecorded results not recorded; webhook scheduled → answered p50 $ring_p50 ms, p99 $ring_p99 ms; $(load)"
fi

log_warnings() {
  warnings=$(grep -ciE '"level":"(warning|error)"' "$tmp/service.log" || true)
  ((warnings == 0)) || { echo "== service log: $warnings warning/error lines, last ones:"; grep -iE 'warning|error' "$tmp/service.log" | tail -n 3; }
}
((crash_devices > 0)) || { log_warnings; exit 0; }
# (4) kill -9 a third of the way, then start again. Its FCM devices only: a restarted process
# signs a new APNs provider token, which APNs (and the mock) refuse within 20 minutes of the last.
body "$devices" "$crash_devices" "$tmp/crash.ndjson" '"types":["fcm"],'
location=$(post "$tmp/crash.ndjson")
while (($(api GET "$location" | field 'counts["sent"]') < crash_devices / 6)); do sleep 0.05; done
kill -9 "$service_pid"
wait "$service_pid" 2>/dev/null || true
killed=$(date +%s.%N)
sent_at_kill=$(sql "SELECT sent FROM push_jobs WHERE id = '${location##*/}'")
pending_at_kill=$(sql "SELECT pending FROM push_jobs WHERE id = '${location##*/}'")
service_pid=
start_service
ready=$(date +%s.%N)
if ((pending_at_kill == 0)); then
  # A small job can be over between the last poll and the kill: then nothing is left to resume.
  echo "(4) the job had recorded every device before the kill; raise BENCH_FANOUT_CRASH_DEVICES to measure a resume"
else
  while (($(api GET "$location" | field 'counts["sent"]') <= sent_at_kill)); do sleep 0.02; done
  moving=$(date +%s.%N)
  awk -v k="$killed" -v r="$ready" -v m="$moving" -v s="$sent_at_kill" 'BEGIN {
    printf "(4) kill -9 after %d sent: restart → ready %.2fs, kill → sending again %.2fs\n", s, r - k, m - k }'
fi
while [[ $(api GET "$location" | field status) == running ]]; do sleep 0.2; done
job=$(api GET "$location")
echo "    then: $(field '"%s, %d of %d sent" % (status, counts["sent"], total)' <<<"$job")"
log_warnings
