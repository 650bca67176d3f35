#!/usr/bin/env bash
# `scripts/bench replica`: how much of the read load a streaming replica carries (issue 27). Builds
# release, starts a throwaway primary and a hot standby made from it with `pg_basebackup -R`, runs
# the service with DATABASE_READ_URL on the standby, pre-registers pool "d" (10,000 tokens, 1,000
# users) and drives a steady 70/20/10 list/register/unregister mix with wrk (scenario.lua's
# `readmix`). Prints req/s, p50/p99, errors, the reads each server answered (db_reads_total) and
# the replica's share, and the replica lag at the end, each with the machine's load. Not a test:
# never asserts.
#
# Environment: BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_WARMUP_SECONDS=2
# BENCH_RUNS=1; DATABASE_READ_MAX_LAG_MS (default 1000) and the other service settings pass through.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
ensure_packages wrk

seconds=${BENCH_SECONDS:-20}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
warmup=${BENCH_WARMUP_SECONDS:-2}
runs=${BENCH_RUNS:-1}
export LOG_LEVEL=${LOG_LEVEL:-warning}
here=scripts/bench.d

bin=$(registry_binary release)
data=$PWD/.data/bench-replica-$$
standby=$PWD/.data/bench-standby-$$
tmp=$(mktemp -d)
pg_port=$(free_port)
standby_port=$(free_port)
service_pid=

cleanup() {
  if [[ -n $service_pid ]]; then kill "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null || true; fi
  [[ -f $standby/postmaster.pid ]] && as_postgres "$(pg_bindir)/pg_ctl" -D "$standby" -m immediate -w stop >/dev/null 2>&1
  stop_cluster "$data"
  rm -rf "$data" "$standby" "$tmp"
}
trap cleanup EXIT
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }

start_cluster "$data" "$pg_port"
DATABASE_URL=$(fresh_database "$pg_port" device_registry)
mkdir -p "$standby"
chmod 700 "$standby"
[[ $(id -u) -eq 0 ]] && chown postgres: "$standby"
as_postgres "$(pg_bindir)/pg_basebackup" -h 127.0.0.1 -p "$pg_port" -U postgres -D "$standby" -R -X stream \
  -c fast --no-sync
as_postgres "$(pg_bindir)/pg_ctl" -D "$standby" -l "$standby/server.log" -w -t 30 start \
  -o "-p $standby_port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$standby' -c max_connections=300" \
  >/dev/null
DATABASE_READ_URL=postgresql://postgres@127.0.0.1:$standby_port/device_registry
PORT=$(free_port)
export DATABASE_URL DATABASE_READ_URL PORT
base=http://127.0.0.1:$PORT

echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
"$bin" serve >>"$tmp/service.log" 2>&1 &
service_pid=$!
wait_ready "$base" 60
key=$("$bin" keys create --name bench --scope admin)
"$bin" providers add ios --service apns --topic com.example.app >/dev/null
python3 "$here/preload.py" "$base" "$key"

# reads SERVER: db_reads_total{server=SERVER} from /metrics (0 before the first).
reads() { curl -fs "$base/metrics" | awk -v s="db_reads_total{server=\"$1\"}" '$1 == s { print $2; found = 1 } END { if (!found) print 0 }'; }

((warmup > 0)) && wrk -t"$threads" -c"$connections" -d"${warmup}s" -s "$here/scenario.lua" "$base" \
  -- readmix "$key" 0 >/dev/null
for ((run = 1; run <= runs; run++)); do
  replica_before=$(reads replica) primary_before=$(reads primary)
  output=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$here/scenario.lua" "$base" -- readmix "$key" 0 2>&1)
  replica_reads=$(awk -v a="$(reads replica)" -v b="$replica_before" 'BEGIN { printf "%.0f", a - b }')
  primary_reads=$(awk -v a="$(reads primary)" -v b="$primary_before" 'BEGIN { printf "%.0f", a - b }')
  line=$(grep '^BENCH ' <<<"$output") || { echo "$output" >&2; exit 1; }
  declare -A f=()
  for pair in ${line#BENCH }; do f[${pair%%=*}]=${pair#*=}; done
  lag=$(curl -fs "$base/metrics" | awk '$1 == "db_replica_lag_seconds" { print $2 }')
  echo "== 70/20/10 list/register/unregister with a replica, run $run:" \
    "$(awk -v r="${f[requests]}" -v d="${f[duration_us]}" 'BEGIN { printf "%.0f", r / (d / 1e6) }') req/s," \
    "p50 $(awk -v v="${f[p50_us]}" 'BEGIN { printf "%.1f", v / 1000 }') ms," \
    "p99 $(awk -v v="${f[p99_us]}" 'BEGIN { printf "%.1f", v / 1000 }') ms," \
    "errors $((${f[status_errors]} + ${f[socket_errors]} + ${f[timeouts]}));" \
    "reads: replica $replica_reads, primary $primary_reads →" \
    "$(awk -v r="$replica_reads" -v p="$primary_reads" 'BEGIN { printf "%.1f", (r + p) ? 100 * r / (r + p) : 0 }')%" \
    "from the replica; replica lag at the end ${lag:-?} s; $(load)"
done
warnings=$(grep -ciE 'warning|error' "$tmp/service.log" || true)
((warnings == 0)) || { echo "== service log: $warnings warning/error lines, last ones:"; tail -n 5 "$tmp/service.log"; }
