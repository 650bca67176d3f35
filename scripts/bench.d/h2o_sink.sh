# Sourced by `scripts/bench push` and `scripts/bench fanout` (after scripts/lib/setup.sh and
# mock_setup.sh): the push sink they send to, and the CPU counters every figure is made of.
# The sink is `h2o` (BENCH_SINK=h2o, the default) answering 200 from a tiny mruby handler over
# HTTP/2 + TLS with the mock's throwaway certificate: a C server costing a few µs per push, so
# the sink is not what limits. BENCH_SINK=mock sends to the Swift `mock-push` instead (it checks
# every request as APNs and FCM do, and costs far more per push). Either way the service trusts
# the CA through PUSH_CA_FILE, as with the mock, and $mock_pid is the sink's process.

hz=$(getconf CLK_TCK)
sink=${BENCH_SINK:-h2o}
[[ $sink == h2o || $sink == mock ]] || { echo "BENCH_SINK is h2o or mock" >&2; exit 2; }
ticks_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# The read and write system calls PID has made: how many pieces the sink gets a push in (a
# sender that batches its frames into few TLS records costs the sink fewer reads per push).
syscalls_of() { awk '/^sysc[rw]:/ { n += $2 } END { print n }' "/proc/$1/io"; }
# The cluster's: the postmaster, its live children and the children it has reaped.
postgres_ticks() {
  local postmaster total
  postmaster=$(head -n 1 "$data/postmaster.pid")
  total=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster/stat")
  for child in $(pgrep -P "$postmaster"); do total=$((total + $(ticks_of "$child" 2>/dev/null || echo 0))); done
  echo "$total"
}
# µs TICKS N: CPU microseconds per push for TICKS clock ticks over N pushes.
us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.0f", (n > 0 ? t / hz / n * 1e6 : 0) }'; }
# per100 COUNT N: COUNT per 100 of N.
per100() { awk -v c="$1" -v n="$2" 'BEGIN { printf "%.0f", (n > 0 ? c / n * 100 : 0) }'; }
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }

# With sink_ring_token set (h2o only), the pushes to that token are also logged to
# $tmp/sink-rings.log, "<µs since the epoch> <event id>" each (the id of the `paced-…` webhook
# its body carries, `ring_tools.py paced` with RING_SINK_LOG): when each ring reached the sink.
ring_path() {
  [[ -n ${sink_ring_token:-} ]] || return 0
  cat <<EOF
      /3/device/$sink_ring_token:
        access-log:
          path: $tmp/sink-rings.log
          format: "%{usec}t %{x-ring}o"
        mruby.handler: |
          Proc.new do |env|
            body = env["rack.input"] ? env["rack.input"].read : ""
            at = body.index("paced-")
            ring = at ? body[at, 80].split('"')[0] : "-"
            [200, {"apns-id" => env["HTTP_APNS_ID"] || "00000000-0000-0000-0000-000000000000", "x-ring" => ring}, ["{}"]]
          end
EOF
}

# start_sink MOCK_ARGS…: the sink on $mock_port with make_mock_certificates' files; MOCK_ARGS
# (the keys and accounts the mock accepts) matter only to the mock. h2o answers APNs with the
# request's apns-id and a `{}` body (aioapns matches answers by the id and reads any DATA frame,
# even h2o's empty one, as JSON), FCM with a message name and the OAuth token endpoint with a
# token, whatever is sent.
start_sink() {
  if [[ $sink == mock ]]; then
    ensure_packages nghttp2-client
    start_mock_push "$@"
    return
  fi
  ensure_packages h2o nghttp2-client
  cat >"$tmp/h2o.conf" <<EOF
listen:
  host: 127.0.0.1
  port: $mock_port
  ssl:
    certificate-file: $tmp/server.pem
    key-file: $tmp/server.key
user: $(id -un)
pid-file: $tmp/h2o.pid
error-log: $tmp/h2o.log
hosts:
  default:
    paths:
$(ring_path)
      /:
        mruby.handler: |
          Proc.new do |env|
            path = env["PATH_INFO"]
            if path == "/token"
              [200, {"content-type" => "application/json"}, ['{"access_token":"sink","expires_in":3600,"token_type":"Bearer"}']]
            elsif path.start_with?("/v1/projects/")
              [200, {"content-type" => "application/json"}, ['{"name":"projects/bench-project/messages/0"}']]
            else
              [200, {"apns-id" => env["HTTP_APNS_ID"] || "00000000-0000-0000-0000-000000000000"}, ["{}"]]
            end
          end
EOF
  h2o -c "$tmp/h2o.conf" >>"$tmp/h2o.log" 2>&1 &
  mock_pid=$!
  for _ in $(seq 100); do curl -skf -o /dev/null -X POST "https://localhost:$mock_port/3/device/x" && return; sleep 0.1; done
  echo "h2o did not start:" >&2
  tail -n 5 "$tmp/h2o.log" >&2
  exit 1
}

# h2load_sink SECONDS PATH ARGS…: h2load (4 connections × 64 streams) posting $tmp/payload.json
# to the sink's PATH for SECONDS with ARGS (headers); sets h2_rps, h2_ok, h2_cpu and h2_sink_cpu
# (µs per 2xx) and h2_sink_calls (the sink's read and write system calls per 100 pushes) and
# prints one line.
h2load_sink() {
  local before ticks out calls_before
  before=$(ticks_of "$mock_pid") calls_before=$(syscalls_of "$mock_pid")
  out=$(/usr/bin/time -f 'CPU %U %S' h2load -D "$1" -c 4 -m 64 -d "$tmp/payload.json" "${@:3}" \
    "https://localhost:$mock_port$2" 2>&1)
  ticks=$(($(ticks_of "$mock_pid") - before))
  h2_sink_calls=$(($(syscalls_of "$mock_pid") - calls_before))
  h2_rps=$(grep -o 'finished in [^,]*, [0-9.]* req/s' <<<"$out" | awk '{ printf "%.0f", $(NF - 1) }')
  h2_ok=$(grep -o '^status codes: [0-9]* 2xx' <<<"$out" | awk '{ print $3 }')
  h2_cpu=$(awk -v n="${h2_ok:-0}" '/^CPU / { printf "%.0f", (n > 0 ? ($2 + $3) / n * 1e6 : 0) }' <<<"$out")
  h2_sink_cpu=$(us "$ticks" "${h2_ok:-0}")
  h2_sink_calls=$(per100 "$h2_sink_calls" "${h2_ok:-0}")
  echo "h2load straight to the $sink sink: ${h2_rps:-?} requests/s (${h2_ok:-0} 2xx); CPU µs per push:" \
    "h2load $h2_cpu, $sink $h2_sink_cpu; $sink system calls per 100 pushes $h2_sink_calls; $(load)"
}
