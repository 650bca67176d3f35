# Sourced by the push, ring and fanout benches (after scripts/lib/setup.sh): their throwaway
# PostgreSQL folder, temporary folder and processes, removed on exit, and the TLS files the mock
# serves. NAME names the data folder.
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
