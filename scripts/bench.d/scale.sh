#!/usr/bin/env bash
# `scripts/bench scale` (issue 27): the registry on a database of SCALE_DEVICES (10,000,000)
# devices, against the push sink of scripts/bench.d/h2o_sink.sh (h2o over TLS and HTTP/2 on
# loopback; BENCH_SINK=mock for `mock-push`). Not a test: it prints figures and never asserts;
# every line ends with the machine's load.
#   (1) load: the schema as of migration 0015, then every device through POST /v1/devices/import
#       (users s-0, s-1, … with 2 and 3 APNs tokens in turn), in chunks of SCALE_IMPORT_CHUNK;
#       then a history as the old schema held it: SCALE_CALL_EVENTS call events spread over the
#       last 8 days and a push job finished 8 days ago with SCALE_OLD_JOB_ROWS outcome rows
#   (2) each later migration (0016, 0017, …) timed on that data, by `device-registry migrate`
#   (3) new registrations/s (wrk, BENCH_CONNECTIONS, BENCH_SECONDS), p50/p99
#   (4) a random loaded user's listing: req/s, p50/p99
#   (5) BENCH_RING_RATE (200) DialStack webhooks/s, open loop, for BENCH_SECONDS: each a new call
#       event claimed, one VoIP push, its result written; p50/p99 webhook in → push out
#   (6) one push job to the first SCALE_JOB_DEVICES (1,000,000) loaded devices, its users streamed
#       in one NDJSON request (the API takes up to 1,000,000 users a job): accept time, pushes/s
#       accept → last push, CPU per push; and the rings of (5) again while the job sends
#   (7) table and index sizes, the service's RSS (peak and now)
#   (8) `device-registry prune` (devices, call events and push jobs at their default retention)
# Environment: SCALE_DEVICES=10000000 SCALE_JOB_DEVICES=min(1000000, devices/2)
# SCALE_CALL_EVENTS=devices/10 SCALE_OLD_JOB_ROWS=SCALE_JOB_DEVICES SCALE_IMPORT_CHUNK=1000000
# SCALE_SHARED_BUFFERS=2GB BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_RING_RATE=200
# BENCH_SINK=h2o; the service's own settings (DB_POOL_SIZE, PUSH_JOB_*) pass through.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
source scripts/bench.d/mock_setup.sh
source scripts/bench.d/h2o_sink.sh
ensure_packages wrk time

devices=${SCALE_DEVICES:-10000000}
job_devices=${SCALE_JOB_DEVICES:-$((devices / 2 < 1000000 ? devices / 2 : 1000000))}
call_events=${SCALE_CALL_EVENTS:-$((devices / 10))}
old_job_rows=${SCALE_OLD_JOB_ROWS:-$job_devices}
chunk=${SCALE_IMPORT_CHUNK:-1000000}
seconds=${BENCH_SECONDS:-20}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
rate=${BENCH_RING_RATE:-200}
export LOG_LEVEL=${LOG_LEVEL:-warning}
here=scripts/bench.d
team=ABCDE12345 kid=XYZ987WVU6
users=$(((devices / 5) * 2 + (devices % 5 > 2 ? 2 : devices % 5 > 0 ? 1 : 0)))

bin=$(registry_binary release)
bench_scratch scale
make_mock_certificates
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/AuthKey.p8"
mock_port=$(free_port)
start_sink --apns-key "$team:$kid:$tmp/AuthKey.p8"
service_environment
psql -qX -h 127.0.0.1 -p "$pg_port" -U postgres -c "ALTER SYSTEM SET shared_buffers = '${SCALE_SHARED_BUFFERS:-2GB}'"
stop_cluster "$data"
start_cluster "$data" "$pg_port"
secret=whsec_$(openssl rand -hex 24)
export DIALSTACK_WEBHOOK_SECRET=$secret REGISTRY_ADMIN_KEY=$admin

sql() { psql -qXtA -h 127.0.0.1 -p "$pg_port" -U postgres device_registry -c "$1"; }
api() { curl -sf -X "$1" "$base$2" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' "${@:3}"; }
field() { python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1], {}, j))' "$1"; }
start_service() {
  "$bin" serve >>"$tmp/service.log" 2>&1 &
  service_pid=$!
  wait_ready "$base" 120
}
stop_service() {
  kill "$service_pid"
  wait "$service_pid" || true
  service_pid=
}
# ticks_of, postgres_ticks (the postmaster, its live children and the children it has reaped)
# and load come from h2o_sink.sh: per request, CPU is the figure a shared box keeps.
cpu_mark() { service_mark=$(ticks_of "$service_pid") postgres_mark=$(postgres_ticks) sink_mark=$(ticks_of "$mock_pid"); }
# cpu_per COUNT: "service S µs, postgres P µs, sink K µs" of CPU per item since cpu_mark.
cpu_per() {
  awk -v s=$(($(ticks_of "$service_pid") - service_mark)) -v p=$(($(postgres_ticks) - postgres_mark)) \
    -v k=$(($(ticks_of "$mock_pid") - sink_mark)) -v hz="$hz" -v n="$1" -v sink="$sink" \
    'BEGIN { printf "CPU µs each: service %.0f, postgres %.0f, %s %.0f", s / hz / n * 1e6, p / hz / n * 1e6, sink, k / hz / n * 1e6 }'
}
# wrk_line SCRIPT ARGS…: one wrk run of SCRIPT; prints "req/s p50_ms p99_ms errors requests".
wrk_line() {
  local script=$1 output line
  output=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$script" "$base" -- "${@:2}")
  line=$(grep '^BENCH ' <<<"$output") || { echo "$output" >&2; exit 1; }
  declare -A f=()
  for pair in ${line#BENCH }; do f[${pair%%=*}]=${pair#*=}; done
  awk -v r="${f[requests]}" -v d="${f[duration_us]}" -v p50="${f[p50_us]}" -v p99="${f[p99_us]}" \
    -v e=$((f[status_errors] + f[socket_errors] + f[timeouts])) \
    'BEGIN { printf "%.0f %.1f %.1f %d %d\n", r / (d / 1e6), p50 / 1000, p99 / 1000, e, r }'
}

# A failed step says where, and whether the service was still running (its log goes with $tmp).
trap 'echo "== failed at line $LINENO; service $([[ -n $service_pid ]] && kill -0 "$service_pid" 2>/dev/null && echo running || echo gone); its log ends:" >&2; tail -n 5 "$tmp/service.log" >&2' ERR
echo "== machine: $(nproc) cores, $(free -g | awk '/^Mem/ { print $2 }') GiB; $(uptime)"
echo "== $bin; PostgreSQL $(sql 'SHOW server_version'), shared_buffers $(sql 'SHOW shared_buffers');" \
  "$devices devices for $users users, a $job_devices-device job, $call_events call events of history"

# (1) The schema as it was before this issue's migrations, loaded.
mkdir "$tmp/migrations"
for file in Migrations/*.sql; do
  version=$(basename "$file" | cut -c1-4)
  if ((10#$version <= 15)); then cp "$file" "$tmp/migrations/"; fi
done
started=$(date +%s.%N)
MIGRATIONS_DIR=$tmp/migrations "$bin" migrate >/dev/null
echo "(1) migrations 0001–0015 on the empty database: $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')s"
MIGRATIONS_DIR=$tmp/migrations start_service
python3 -c 'import json, sys; print(json.dumps({"service": "apns", "topic": "com.example.app", "endpoint": sys.argv[1],
  "credentials": {"team_id": sys.argv[2], "key_id": sys.argv[3], "private_key": open(sys.argv[4]).read()}}))' \
  "https://localhost:$mock_port" "$team" "$kid" "$tmp/AuthKey.p8" | api PUT /v1/providers/ios -d @- >/dev/null
imported=0 import_seconds=0
for ((first = 0; first < devices; first += chunk)); do
  count=$((devices - first < chunk ? devices - first : chunk))
  python3 "$here/scale_import.py" "$first" "$count" >"$tmp/import.ndjson"
  # A database failure midway answers 503 with the lines before it committed; a rerun is harmless
  # (openapi.yaml), so a refused chunk is sent again, as a client would, and its time counted.
  took=0
  for attempt in 1 2 3 4 5; do
    read -r answered spent < <(curl -s -o "$tmp/import.out" -w '%{http_code} %{time_total}\n' -X POST \
      "$base/v1/devices/import" -H "Authorization: Bearer $admin" -H 'Content-Type: application/x-ndjson' \
      --data-binary @"$tmp/import.ndjson" || true)
    took=$(awk -v a="$took" -v b="${spent:-0}" 'BEGIN { print a + b }')
    [[ $answered == 200 ]] && break
    echo "    import $first…: attempt $attempt answered ${answered:-no response} after ${spent:-?}s:" \
      "$(head -c 300 "$tmp/import.out" 2>/dev/null); $(load)"
    ((attempt < 5)) || exit 1
  done
  ok=$(grep -cE '"status":20[01]' "$tmp/import.out" || true)
  imported=$((imported + ok))
  import_seconds=$(awk -v a="$import_seconds" -v b="$took" 'BEGIN { print a + b }')
  echo "    import $first…$((first + count - 1)): $ok registered in ${took}s; $(load)"
done
rm -f "$tmp/import.ndjson" "$tmp/import.out"
import_rps=$(awk -v n="$imported" -v t="$import_seconds" 'BEGIN { printf "%.0f", n / t }')
echo "(1) import: $imported of $devices devices in ${import_seconds}s → $import_rps rows/s; $(load)"
echo "{\"user_id\":\"ring-user\",\"provider\":\"ios\",\"type\":\"voip\",\"token\":\"$(printf 'c%063x' 1)\"}" |
  api POST /v1/devices -d @- >/dev/null
stop_service
# The history the old schema held: rings of the last 8 days, and a job finished 8 days ago.
started=$(date +%s.%N)
sql "INSERT INTO call_events (id, digest, type, state, deadline, result, created_at, finished_at)
     SELECT 'history-' || n, repeat('0', 64), 'call.mobile_push_wakeup', 'done', at + interval '30 s',
            ('[{\"user_id\":\"s-' || n || '\",\"provider\":\"ios\",\"type\":\"voip\",\"token_suffix\":\"9f3a1c\",\"status\":\"sent\",\"apns_id\":\"' || gen_random_uuid() || '\"}]')::jsonb,
            at, at
       FROM generate_series(1, $call_events) n, LATERAL (SELECT now() - n * interval '8 days' / $call_events AS at) t"
sql "INSERT INTO push_jobs (id, kind, payload, status, created_at, deadline_at, started_at, finished_at, total, sent)
     VALUES ('00000000-0000-4000-8000-000000000001', 'push', '{}', 'done', now() - interval '8 days 1 hour',
             now() - interval '8 days', now() - interval '8 days 1 hour', now() - interval '8 days',
             $old_job_rows, $old_job_rows);
     INSERT INTO push_job_deliveries (job_id, device_id, user_id, status, attempts, service_id, finished_at)
     SELECT '00000000-0000-4000-8000-000000000001', n, 's-' || n, 'sent', 1, gen_random_uuid()::text,
            now() - interval '8 days'
       FROM generate_series(1, $old_job_rows) n"
sql "VACUUM ANALYZE"
echo "(1) history: $call_events call events, $old_job_rows outcome rows of a finished job in" \
  "$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')s"

# (2) This issue's migrations (and any later one), each timed on that data.
for file in Migrations/*.sql; do
  version=$(basename "$file" | cut -c1-4)
  if ((10#$version <= 15)); then continue; fi
  cp "$file" "$tmp/migrations/"
  started=$(date +%s.%N)
  MIGRATIONS_DIR=$tmp/migrations "$bin" migrate >/dev/null
  echo "(2) migration $(basename "$file" .sql): $(awk -v s="$started" -v e="$(date +%s.%N)" \
    'BEGIN { printf "%.2f", e - s }')s on this data; $(load)"
done
sql "ANALYZE"
start_service

# (3) New registrations; (4) listings of random loaded users.
cpu_mark
read -r reg_rps reg_p50 reg_p99 reg_errors reg_n < <(wrk_line "$here/scenario.lua" new "$admin" \
  "$(printf '%08x' "$(($(date +%s) & 0xffffffff))")")
echo "(3) new registrations: $reg_rps req/s, p50 $reg_p50 ms, p99 $reg_p99 ms, $reg_errors errors; $(cpu_per "$reg_n"); $(load)"
cpu_mark
read -r list_rps list_p50 list_p99 list_errors list_n < <(wrk_line "$here/scale_list.lua" "$admin" "$users")
echo "(4) list a random user: $list_rps req/s, p50 $list_p50 ms, p99 $list_p99 ms, $list_errors errors; $(cpu_per "$list_n"); $(load)"

# (5) Rings at a steady rate: the claim, one VoIP push, the result.
IFS=$'\t' read -r signature body < <(python3 "$here/ring_tools.py" signed "$secret" ring-user 1 first)
curl -sf -X POST "$base/v1/webhooks/dialstack" -H 'Content-Type: application/json' \
  -H "X-DialStack-Signature: $signature" -d "$body" | grep -q '"status":"sent"' ||
  { echo "the first ring was not sent" >&2; exit 1; }
cpu_mark
read -r rung ring_failed ring_p50 ring_p99 < <(python3 "$here/ring_tools.py" paced "$base" "$secret" ring-user \
  "$rate" "$seconds")
echo "(5) $rate rings/s for ${seconds}s: $rung rung, $ring_failed failed; webhook in → push out p50 $ring_p50 ms," \
  "p99 $ring_p99 ms; $(cpu_per "$rung") per ring (the 200/s pace, idle between); $(load)"

# (6) One push job to the first job_devices devices (users s-0 … covering them), streamed as
# NDJSON in one request; the paced rings of (5) run again while it sends.
job_users=$(((job_devices / 5) * 2 + (job_devices % 5 > 2 ? 2 : job_devices % 5 > 0 ? 1 : 0)))
echo '{"apns":{"push_type":"alert","priority":10,"payload":{"aps":{"alert":{"title":"Live now"}}}},"deadline":"2h"}' \
  >"$tmp/job.ndjson"
seq 0 $((job_users - 1)) | sed 's/.*/"s-&"/' >>"$tmp/job.ndjson"
cpu_mark
code=$(curl -s -o "$tmp/accepted.json" -D "$tmp/accepted.headers" -w '%{http_code} %{time_total}' -X POST \
  "$base/v1/push-jobs" -H "Authorization: Bearer $admin" -H 'Content-Type: application/x-ndjson' \
  --data-binary @"$tmp/job.ndjson") || { echo "(6) POST /v1/push-jobs: curl failed ($?)" >&2; exit 1; }
read -r status accept_seconds <<<"$code"
if [[ $status != 202 ]]; then
  echo "(6) POST /v1/push-jobs answered $status:" >&2
  cat "$tmp/accepted.json" >&2
  echo >&2
  exit 1
fi
location=$(tr -d '\r' <"$tmp/accepted.headers" | awk 'tolower($1) == "location:" { print $2 }')
echo "(6) job of $job_users users ($(wc -c <"$tmp/job.ndjson") bytes of NDJSON) accepted in ${accept_seconds}s:" \
  "$(field 'total' <"$tmp/accepted.json") devices; $(load)"
python3 "$here/ring_tools.py" paced "$base" "$secret" ring-user "$rate" "$seconds" >"$tmp/rings_during_job" &
rings_pid=$!
while [[ $(api GET "$location" | field status) =~ ^(queued|running)$ ]]; do sleep 1; done
job=$(api GET "$location")
python3 - "$job" <<'PY'
import json, sys
from datetime import datetime
job = json.loads(sys.argv[1])
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
seconds = (t(job["finished_at"]) - t(job["created_at"])).total_seconds()
c = job["counts"]
print(f"(6) job {job['status']}: {c['sent']} of {job['total']} sent in {seconds:.1f}s accept → last push"
      f" → {c['sent'] / seconds:.0f} pushes/s; counts {c}")
PY
echo "    $(cpu_per "$(field 'counts["sent"]' <<<"$job")") per push (the rings below included); $(load)"
wait "$rings_pid"
read -r rung ring_failed ring_p50 ring_p99 <"$tmp/rings_during_job"
echo "(6) $rate rings/s for ${seconds}s while the job sent: $rung rung, $ring_failed failed; webhook in → push out" \
  "p50 $ring_p50 ms, p99 $ring_p99 ms; $(load)"

# (7) Sizes and memory.
# Rows as ANALYZE estimated them (a count would scan every table), of the leaf tables only (a
# partitioned parent's estimate repeats its partitions'); bytes per row from those.
echo "(7) sizes (table = heap + TOAST, of every partition; rows estimated by ANALYZE):"
sql "ANALYZE"
sql "SELECT format('    %-22s table %8s  indexes %8s  rows %11s  bytes a row: table %s, indexes %s', t,
                   pg_size_pretty(sum(pg_table_size(p.relid))), pg_size_pretty(sum(pg_indexes_size(p.relid))),
                   sum(CASE c.relkind WHEN 'p' THEN 0 ELSE greatest(c.reltuples, 0) END)::bigint,
                   round(sum(pg_table_size(p.relid)) / nullif(sum(CASE c.relkind WHEN 'p' THEN 0 ELSE greatest(c.reltuples, 0) END), 0)),
                   round(sum(pg_indexes_size(p.relid)) / nullif(sum(CASE c.relkind WHEN 'p' THEN 0 ELSE greatest(c.reltuples, 0) END), 0)))
       FROM unnest(ARRAY['devices', 'call_events', 'push_jobs', 'push_job_deliveries', 'push_job_batches']) t,
            LATERAL (SELECT t::regclass AS relid UNION SELECT relid FROM pg_partition_tree(t::regclass)) p
            JOIN pg_class c ON c.oid = p.relid
      GROUP BY t ORDER BY t"
sql "SELECT format('    %-40s %8s', indexrelid::regclass, pg_size_pretty(pg_relation_size(indexrelid)))
       FROM pg_index WHERE indrelid = 'devices'::regclass ORDER BY 1"
echo "    database $(sql "SELECT pg_size_pretty(pg_database_size('device_registry'))")"
echo "    service RSS: peak $(awk '/^VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$service_pid/status") MiB," \
  "now $(awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$service_pid/status") MiB"

# (8) The prune, at its default retention.
started=$(date +%s.%N)
"$bin" prune | sed 's/^/    /'
echo "(8) prune: $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')s; $(load)"

warnings=$(grep -ciE '"level":"(warning|error)"' "$tmp/service.log" || true)
((warnings == 0)) || { echo "== service log: $warnings warning/error lines, last ones:"; grep -iE 'warning|error' "$tmp/service.log" | tail -n 3; }
echo
echo "DeviceRegistry scale bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $devices devices; $(uptime)"
