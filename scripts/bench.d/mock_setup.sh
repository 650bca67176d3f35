# Sourced by the push, ring and fanout benches (after scripts/lib/setup.sh): their throwaway
# PostgreSQL folder, temporary folder and processes, removed on exit, the TLS files the mock
# serves, the mock itself, and the service's environment. NAME names the data folder.
bench_scratch() {
  data=$PWD/.data/bench-$1-$$
  tmp=$(mktemp -d)
  service_pid= mock_pid=
  trap bench_cleanup EXIT
}

bench_cleanup() {
  for pid in $service_pid $mock_pid; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  stop_cluster "$data"
  rm -rf "$data" "$tmp"
}

# A throwaway CA (ca.pem) and a certificate for localhost signed by it (server.pem, server.key)
# in $tmp; the registry trusts the CA through PUSH_CA_FILE.
make_mock_certificates() {
  local p256=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${p256[@]}" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 2 -subj /CN=bench-ca \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
  openssl req "${p256[@]}" -keyout "$tmp/server.key" -out "$tmp/server.csr" -subj /CN=localhost 2>/dev/null
  openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -out "$tmp/server.pem" -days 2 \
    -extfile <(echo subjectAltName=DNS:localhost,IP:127.0.0.1) 2>/dev/null
}

# start_mock_push ARGS…: `mock-push` on $mock_port (the caller picks it: an FCM service account
# names it in its token_uri) with the certificates above and ARGS (the keys and accounts it
# accepts); returns once it listens.
start_mock_push() {
  local mock
  mock=$(mock_push_binary release) # built here, not in the background subshell below
  "$mock" --port "$mock_port" --certificate "$tmp/server.pem" --private-key "$tmp/server.key" "$@" \
    >"$tmp/mock.log" 2>&1 &
  mock_pid=$!
  for _ in $(seq 100); do grep -q listening "$tmp/mock.log" && break; sleep 0.1; done
}

# service_environment: a throwaway PostgreSQL cluster and database in $data, a free PORT, an
# admin key ($admin) and a master key, exported for `serve`, which trusts the mock's CA; $base is
# the service's URL.
service_environment() {
  pg_port=$(free_port)
  start_cluster "$data" "$pg_port"
  DATABASE_URL=$(fresh_database "$pg_port" device_registry)
  PORT=$(free_port)
  admin=drk_$(openssl rand 32 | basenc --base64url | tr -d '=\n')
  REGISTRY_MASTER_KEY=$(openssl rand 32 | basenc --base64url | tr -d '=\n')
  PUSH_CA_FILE=$tmp/ca.pem
  export DATABASE_URL PORT REGISTRY_MASTER_KEY PUSH_CA_FILE
  base=http://127.0.0.1:$PORT
}
