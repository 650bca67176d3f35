# Shared by scripts/hostile-http and scripts/slowloris: a throwaway PostgreSQL cluster and one
# device-registry on loopback with an admin key and an `ios` provider. Source it after
# scripts/lib/setup.sh; do not run it.
#
# start_hostile_service NAME [VAR=VALUE…] sets:
#   SERVICE_PORT, SERVICE_URL, SERVICE_PID, SERVICE_LOG (JSON lines), ADMIN_KEY, SERVICE_DIR
# and installs an EXIT trap that stops the service and the cluster and removes the data.
# The extra VAR=VALUE pairs go to the service's environment (e.g. HEADER_TIMEOUT_SECONDS=3).
# REGISTRY_BIN picks a prebuilt binary; otherwise HOSTILE_BUILD (debug|release, default debug)
# is built with registry_binary.

start_hostile_service() {
  local name=$1
  shift
  ensure_packages
  local bin=${REGISTRY_BIN:-}
  [[ -n $bin ]] || bin=$(registry_binary "${HOSTILE_BUILD:-debug}")
  SERVICE_DIR=$PWD/.data/$name-$$
  local pg_port
  pg_port=$(free_port)
  trap 'stop_hostile_service' EXIT
  start_cluster "$SERVICE_DIR/pg" "$pg_port"
  local url
  url=$(fresh_database "$pg_port" registry)
  SERVICE_PORT=$(free_port)
  SERVICE_URL=http://127.0.0.1:$SERVICE_PORT
  SERVICE_LOG=$SERVICE_DIR/service.log
  env DATABASE_URL="$url" HOST=127.0.0.1 PORT="$SERVICE_PORT" LOG_FORMAT=json "$@" \
    "$bin" serve >"$SERVICE_LOG" 2>&1 &
  SERVICE_PID=$!
  if ! wait_ready "$SERVICE_URL" 60; then
    tail -n 20 "$SERVICE_LOG" >&2
    return 1
  fi
  ADMIN_KEY=$(DATABASE_URL="$url" "$bin" keys create --name h --scope admin)
  DATABASE_URL="$url" "$bin" providers add ios --service apns --topic com.example.app >/dev/null
}

stop_hostile_service() {
  if [[ -n ${SERVICE_PID:-} ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill -TERM "$SERVICE_PID"
    wait "$SERVICE_PID" 2>/dev/null || true
  fi
  if [[ -n ${SERVICE_DIR:-} ]]; then
    stop_cluster "$SERVICE_DIR/pg"
    # Keep the service log of a failed run for reading; the cluster goes either way.
    rm -rf "$SERVICE_DIR/pg"
    [[ ${KEEP_LOG:-} == 1 ]] || rm -rf "$SERVICE_DIR"
  fi
}
