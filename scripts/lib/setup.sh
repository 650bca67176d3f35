# Shared by scripts/serve, scripts/test, scripts/bench, scripts/sanitize, scripts/hostile-http and
# scripts/slowloris: install what is missing, run a local PostgreSQL cluster as the `postgres`
# user (it refuses to run as root). Source it; do not run it.

# Installs the Debian packages that provide the given commands or headers, only when missing.
ensure_packages() {
  local missing=()
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
  pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
  pkg-config --exists zlib 2>/dev/null || missing+=(zlib1g-dev)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v curl >/dev/null || missing+=(curl)
  [[ -x "$(pg_bindir)/initdb" ]] || missing+=(postgresql postgresql-contrib)
  command -v runuser >/dev/null || missing+=(util-linux)
  command -v psql >/dev/null || missing+=(postgresql-client)
  missing+=("$@")
  local need=()
  for p in "${missing[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
  [[ ${#need[@]} -eq 0 ]] && return 0
  echo "Installing: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq "${need[@]}" >&2
}

# The newest installed PostgreSQL server's bin directory.
pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  echo "${dir:-/usr/lib/postgresql/15/bin}"
}

# as_postgres CMD…: runs a server command as the postgres user (root cannot run the server).
as_postgres() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_cluster DIR PORT: initialises DIR once (trust auth, loopback only) and starts it.
# PG_WAL_IN_MEMORY=1 puts a new cluster's WAL on tmpfs (/dev/shm; see cluster_wal_dir): commits
# still wait for their WAL flush, but a flush costs nothing there, so a bench can tell what this
# machine's disk adds (its fsync tail) from what the service does. Data files stay in DIR.
start_cluster() {
  local dir=$1 port=$2 bin waldir=()
  bin=$(pg_bindir)
  mkdir -p "$dir"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
  chmod 700 "$dir"
  if [[ ! -f $dir/PG_VERSION ]]; then
    [[ ${PG_WAL_IN_MEMORY:-} == 1 ]] && waldir=(--waldir "$(cluster_wal_dir "$dir")")
    as_postgres "$bin/initdb" -D "$dir" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 "${waldir[@]}" >/dev/null
  fi
  if ! as_postgres "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_postgres "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 start \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$dir' -c max_connections=300" >/dev/null
  fi
}

# cluster_wal_dir DIR: a new, empty WAL directory for cluster DIR under /dev/shm/registry-wal/,
# owned by postgres. Removing DIR (rm -rf) leaves its WAL behind, so this first removes the WAL of
# clusters whose DIR is gone (each WAL directory's `cluster` file names its DIR).
cluster_wal_dir() {
  local root=/dev/shm/registry-wal owner wal
  mkdir -p "$root"
  for owner in "$root"/*/cluster; do
    [[ -f $owner && ! -d $(cat "$owner") ]] && rm -rf "$(dirname "$owner")"
  done
  wal=$(mktemp -d "$root/XXXXXX")
  chmod 755 "$wal"
  echo "$1" >"$wal/cluster"
  mkdir "$wal/pg_wal"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$wal/pg_wal"
  echo "$wal/pg_wal"
}

# stop_cluster DIR: fast shutdown; quiet when it is not running.
stop_cluster() {
  as_postgres "$(pg_bindir)/pg_ctl" -D "$1" -m fast -w stop >/dev/null 2>&1 || true
}

# start_test_cluster: a throwaway cluster for the test suite, stopped and removed when the shell
# exits (pass or fail); exports TEST_DATABASE_URL and PG_BINDIR, which the tests read.
start_test_cluster() {
  TEST_CLUSTER_DIR=$PWD/.data/test-$$
  local port
  port=$(free_port)
  trap 'stop_cluster "$TEST_CLUSTER_DIR"; rm -rf "$TEST_CLUSTER_DIR"' EXIT
  start_cluster "$TEST_CLUSTER_DIR" "$port"
  export TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$port/postgres"
  export PG_BINDIR
  PG_BINDIR=$(pg_bindir)
}

# free_port: a TCP port nobody listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# built_product PRODUCT [debug|release]: builds PRODUCT and prints its path. A release build is the
# shipped one (`--static-swift-stdlib`, as scripts/serve, smoke-serve and the image build it), so
# the benches measure what ships and every script shares one release build instead of compiling
# everything again under other flags.
built_product() {
  local product=$1 config=${2:-release} flags=(-c "${2:-release}")
  [[ $config == release ]] && flags+=(--static-swift-stdlib)
  swift build "${flags[@]}" --product "$product" >&2
  echo "$(swift build "${flags[@]}" --show-bin-path)/$product"
}

# registry_binary [debug|release]: builds device-registry and prints its path.
registry_binary() { built_product device-registry "$@"; }

# mock_push_binary [debug|release]: builds the mock APNs/FCM (`mock-push`) and prints its path.
mock_push_binary() { built_product mock-push "$@"; }

# fresh_database PORT NAME: (re)creates database NAME on the local cluster at PORT; prints its URL.
fresh_database() {
  local port=$1 name=$2
  psql -q -h 127.0.0.1 -p "$port" -U postgres -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" \
    -c "CREATE DATABASE \"$name\"" >&2
  echo "postgresql://postgres@127.0.0.1:$port/$name"
}

# wait_ready BASE_URL [SECONDS]: waits until /readyz answers 200.
wait_ready() {
  local base=$1 deadline=$((SECONDS + ${2:-30}))
  until curl -fs "$base/readyz" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { echo "service at $base not ready" >&2; return 1; }
    sleep 0.1
  done
}
