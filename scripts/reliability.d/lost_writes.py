"""No acknowledged write lost (the Jepsen model), driven by scripts/lost-writes.

Writers register and delete *distinct* APNs tokens (each registered at most once, deleted at most
once, so every outcome is unambiguous) against a service that a supervisor restarts whenever it
exits, while faults hit the service and PostgreSQL. Every outcome is logged: 2xx acknowledged,
4xx failed, anything else (timeout, reset, refused, 5xx) unknown. At the end the table and the
list API must agree and:

  lost         acknowledged registration absent, with no delete of it attempted       must be 0
  resurrected  acknowledged delete of an acknowledged registration, yet present        must be 0
  unexpected   present but never registered, or present after a 4xx registration      must be 0
  duplicates   one (provider, token) twice, in the table or in the listing            must be 0

and while PostgreSQL is down every request is answered 503 with Retry-After within 1 s, and the
service answers 2xx within 2 s of PostgreSQL being back.
"""

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_client import Connection, NoResponse, logged  # noqa: E402
from registry_process import add_service_arguments, cli, wait_ready  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402
from service_supervisor import ServiceSupervisor  # noqa: E402

PROVIDER = "ios"
TOKENS_PER_USER = 10  # below the default per-user cap (25), so no registration evicts another
DOWN_LATENCY_LIMIT = 1.0
RECOVERY_LIMIT = 2.0


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_service_arguments(parser)
    parser.add_argument("--full", action="store_true", help="10 kills, 5 stops, 3 freezes, 5 terminations")
    parser.add_argument("--faults", help="instead of the mode's schedule, e.g. stop:3,kill:2 (kinds: kill, stop, "
                        "freeze, terminate), run in that order")
    parser.add_argument("--writers", type=int, default=128)
    parser.add_argument("--timeout", type=float, default=2.0, help="client timeout per request, seconds")
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args()


class Faults:
    """Runs the fault schedule on its own thread and remembers when each fault began and ended."""

    def __init__(self, cluster, supervisor, full, seed, custom=None):
        self.cluster = cluster
        self.supervisor = supervisor
        counts = {"kill": 10, "stop": 5, "freeze": 3, "terminate": 5} if full else \
            {"kill": 1, "stop": 1, "freeze": 1, "terminate": 1}
        if custom:
            counts = {kind: int(count) for kind, count in (item.split(":") for item in custom.split(","))}
            assert set(counts) <= {"kill", "stop", "freeze", "terminate"}, custom
        schedule = [kind for kind, count in counts.items() for _ in range(count)]
        if full and not custom:
            random.Random(seed).shuffle(schedule)
        self.schedule = schedule
        self.events = []  # dicts: kind, start, plus per kind: down, up, ...
        self.done = threading.Event()

    def run(self, stop_requested):
        try:
            time.sleep(3)  # warm-up under load
            for kind in self.schedule:
                if stop_requested.is_set():
                    break
                getattr(self, kind)()
                time.sleep(random.uniform(3, 4))  # recover and write under load between faults
        finally:
            self.cluster.thaw()
            self.done.set()

    def kill(self):
        start = time.monotonic()
        pid = self.supervisor.kill(signal.SIGKILL)
        self.events.append({"kind": "kill", "start": start, "up": start, "pid": pid})
        log(f"fault: kill -9 of the service (pid {pid})")

    def stop(self):
        start = time.monotonic()
        self.cluster.stop_immediately()
        down = time.monotonic()
        log("fault: PostgreSQL stopped (immediate)")
        time.sleep(3)
        restart = time.monotonic()
        self.cluster.start()
        up = time.monotonic()
        log(f"fault: PostgreSQL back after {up - down:.1f}s (start took {up - restart:.2f}s)")
        self.events.append({"kind": "stop", "start": start, "down": down, "restart": restart, "up": up})

    def freeze(self):
        start = time.monotonic()
        self.cluster.freeze()
        log("fault: PostgreSQL frozen (SIGSTOP)")
        time.sleep(5)
        self.cluster.thaw()
        up = time.monotonic()
        log("fault: PostgreSQL thawed (SIGCONT)")
        self.events.append({"kind": "freeze", "start": start, "down": start, "up": up})

    def terminate(self):
        start = time.monotonic()
        killed = self.cluster.terminate_service_sessions()
        log(f"fault: pg_terminate_backend of {killed} service sessions")
        self.events.append({"kind": "terminate", "start": start, "up": start, "sessions": killed})


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Workload:
    def __init__(self, port, key, writers, timeout, seed):
        self.port = port
        self.headers = {"Authorization": f"Bearer {key}"}
        self.writers = writers
        self.timeout = timeout
        self.seed = seed
        self.outcomes = []
        self.stalls = []  # (from, to): the client's own event loop was late, so latencies overstate
        self.stop = asyncio.Event()

    async def watch_stalls(self):
        """Records when this process, not the service, was slow: each time a 10 ms sleep overran
        by more than 20 ms (CPU starvation on a busy machine, garbage collection)."""
        for _ in range(10_000_000):
            if self.stop.is_set():
                return
            due = time.monotonic() + 0.01
            await asyncio.sleep(0.01)
            woke = time.monotonic()
            if woke - due > 0.02:
                self.stalls.append((due, woke))

    async def writer(self, number):
        rng = random.Random(self.seed * 1000 + number)
        connection = Connection("127.0.0.1", self.port, self.timeout)
        deletable = []  # tokens this writer registered (acknowledged or unknown), not yet deleted
        registered = 0
        for _ in range(1_000_000):  # bounded; the stop event ends it long before
            if self.stop.is_set():
                break
            if deletable and rng.random() < 0.4:
                token, user = deletable.pop(rng.randrange(len(deletable)))
                if rng.random() < 0.5:
                    path = f"/v1/users/{user}/devices/{token}?provider={PROVIDER}"
                    op = "delete_user"
                else:
                    path = f"/v1/devices/{token}?provider={PROVIDER}"
                    op = "delete_token"
                outcome = await logged(connection, op, token, user, "DELETE", path, self.headers)
            else:
                token = f"{number:04x}{registered:08x}{rng.getrandbits(128):032x}{self.seed:04x}".ljust(64, "0")
                user = f"jepsen-{number}-{registered // TOKENS_PER_USER}"
                registered += 1
                body = {"user_id": user, "provider": PROVIDER, "type": "apns", "token": token}
                outcome = await logged(connection, "register", token, user, "POST", "/v1/devices", self.headers, body)
                if outcome.verdict != "failed":
                    deletable.append((token, user))
            self.outcomes.append(outcome)
            if outcome.verdict == "acknowledged":
                await asyncio.sleep(rng.uniform(0, 0.01))
            else:
                await asyncio.sleep(rng.uniform(0.05, 0.1))  # a client backing off a little
        connection.close()

    async def run_until(self, finished):
        tasks = [asyncio.create_task(self.writer(number)) for number in range(self.writers)]
        tasks.append(asyncio.create_task(self.watch_stalls()))
        await finished
        await asyncio.sleep(2)  # keep writing a little after the last fault
        self.stop.set()
        await asyncio.gather(*tasks)


async def request_retrying(port, method, path, headers, timeout, attempts=50):
    """For the final reads: retries 503s and connection failures, for a bounded time."""
    connection = Connection("127.0.0.1", port, timeout)
    try:
        for _ in range(attempts):
            try:
                response = await connection.request(method, path, headers)
                if response.status != 503:
                    return response
            except NoResponse:
                pass
            await asyncio.sleep(0.2)
        raise RuntimeError(f"{method} {path}: no answer after {attempts} attempts")
    finally:
        connection.close()


async def listed_tokens(port, headers, timeout):
    """Every (token, user) of the provider through the keyset-paged list API."""
    listed = []
    cursor = None
    for _ in range(100_000):
        path = f"/v1/devices?provider={PROVIDER}&limit=1000"
        if cursor:
            path += "&cursor=" + urllib.parse.quote(cursor, safe="")
        response = await request_retrying(port, "GET", path, headers, timeout)
        if response.status != 200:
            raise RuntimeError(f"listing answered {response.status}: {response.body[:200]!r}")
        page = response.json()
        listed += [(device["token"], device["user_id"]) for device in page["devices"]]
        cursor = page.get("next_cursor")
        if not cursor:
            return listed
    raise RuntimeError("listing did not end")


def stalled(stalls, outcome):
    """How much of the outcome's latency the client itself was stalled."""
    return sum(max(0.0, min(to, outcome.end) - max(start, outcome.start)) for start, to in stalls)


def analyse(outcomes, table_rows, listed, events, stalls=()):
    """Returns (figures, failures): each figure printed, each failure a reason to exit non-zero."""
    figures = {}
    failures = []

    registrations = {o.token: o for o in outcomes if o.op == "register"}
    deletes = {o.token: o for o in outcomes if o.op.startswith("delete")}
    table = [token for _, token, _ in table_rows]
    present = set(table)
    listed_set = {token for token, _ in listed}

    figures["operations"] = len(outcomes)
    for verdict in ("acknowledged", "failed", "unknown"):
        figures[f"registrations_{verdict}"] = sum(1 for o in registrations.values() if o.verdict == verdict)
        figures[f"deletes_{verdict}"] = sum(1 for o in deletes.values() if o.verdict == verdict)
    statuses = {}
    for o in outcomes:
        key = str(o.status) if o.status is not None else o.error
        statuses[key] = statuses.get(key, 0) + 1
    figures["answers"] = " ".join(f"{k}:{v}" for k, v in sorted(statuses.items()))
    figures["rows"] = len(table)

    lost = [t for t, o in registrations.items() if o.verdict == "acknowledged" and t not in present
            and t not in deletes]
    resurrected = [t for t, d in deletes.items() if d.verdict == "acknowledged" and t in present
                   and registrations[t].verdict == "acknowledged"]
    unexpected = [t for t in present if t not in registrations or registrations[t].verdict == "failed"]
    duplicates = (len(table) - len(present)) + (len(listed) - len(listed_set))
    disagree = present.symmetric_difference(listed_set)
    owner_mismatch = [t for _, t, user in table_rows if t in registrations and registrations[t].user != user]
    not_created = [o for o in registrations.values() if o.verdict == "acknowledged"
                   and b'"created"' not in (o.body or b"")]
    server_errors = [o for o in outcomes if o.status is not None and o.status >= 500 and o.status != 503]
    unavailable_without_retry_after = [o for o in outcomes if o.status == 503 and not o.retry_after]

    figures["lost"] = len(lost)
    figures["resurrected"] = len(resurrected)
    figures["unexpected"] = len(unexpected)
    figures["duplicates"] = duplicates
    figures["table_vs_api_differences"] = len(disagree)
    figures["wrong_owner"] = len(owner_mismatch)
    figures["acknowledged_not_created"] = len(not_created)
    figures["5xx_other_than_503"] = len(server_errors)
    figures["503_without_retry_after"] = len(unavailable_without_retry_after)
    for name in ("lost", "resurrected", "unexpected", "duplicates", "table_vs_api_differences", "wrong_owner",
                 "acknowledged_not_created", "5xx_other_than_503", "503_without_retry_after"):
        if figures[name]:
            failures.append(name)
    if not figures["registrations_acknowledged"] or not figures["deletes_acknowledged"]:
        failures.append("nothing acknowledged")
    for name, tokens in (("lost", lost), ("resurrected", resurrected), ("unexpected", unexpected),
                         ("table_vs_api_differences", sorted(disagree))):
        for token in tokens[:5]:
            log(f"{name}: {token[:16]}… register={describe(registrations.get(token))} "
                f"delete={describe(deletes.get(token))}")
    for o in (server_errors + unavailable_without_retry_after)[:5]:
        log(f"{o.op} answered {o.status} retry-after={o.retry_after}: {(o.body or b'')[:200]!r}")

    figures["client_stall_max_s"] = round(max((to - start for start, to in stalls), default=0), 3)
    figures.update(outage_figures(outcomes, events, failures, stalls))
    return figures, failures


def describe(outcome):
    if outcome is None:
        return "none"
    return f"{outcome.verdict}({outcome.status or outcome.error},{outcome.latency:.2f}s)"


def outage_figures(outcomes, events, failures, stalls):
    """Latency and answers while PostgreSQL was down, and how long until 2xx after each fault."""
    figures = {}
    by_start = sorted(outcomes, key=lambda o: o.start)
    acknowledged_ends = sorted(o.end for o in outcomes if o.verdict == "acknowledged")

    def first_ack_after(instant):
        for end in acknowledged_ends:  # small enough to scan
            if end >= instant:
                return end - instant
        return float("inf")

    for kind in ("stop", "freeze", "kill", "terminate"):
        chosen = [e for e in events if e["kind"] == kind]
        if not chosen:
            continue
        recoveries = [first_ack_after(e["up"]) for e in chosen]
        figures[f"{kind}_count"] = len(chosen)
        figures[f"{kind}_recovery_max_s"] = round(max(recoveries), 3)
        if kind in ("stop", "freeze"):
            # Until every writer is through: the last answer that was not 2xx, after the fault ended.
            settled = [max((o.end for o in outcomes if e["up"] <= o.start and o.end <= next_fault(events, e)
                            and o.verdict != "acknowledged"), default=e["up"]) - e["up"] for e in chosen]
            figures[f"{kind}_last_non_2xx_after_back_max_s"] = round(max(settled), 3)
        if kind == "stop":
            # Down means from the stop until the start command: PostgreSQL accepts connections some
            # time before `pg_ctl -w start` notices, so a 2xx may come before `up`, never before `restart`.
            during = [o for e in chosen for o in by_start if e["down"] <= o.start <= e["restart"]]
            unavailable = [o for o in during if o.status == 503]
            bad_answers = [o for o in during if not (o.status == 503 and o.retry_after)
                           and not (o.verdict == "acknowledged" and o.end >= restart_of(chosen, o))]
            figures["down_requests"] = len(during)
            figures["down_503_max_latency_s"] = round(max((o.latency for o in unavailable), default=0), 3)
            # The service's share: without the time the client itself was stalled.
            figures["down_503_max_service_latency_s"] = round(
                max((o.latency - stalled(stalls, o) for o in unavailable), default=0), 3)
            figures["down_not_503_retry_after"] = len(bad_answers)
            for o in bad_answers[:5]:
                log(f"while down: {o.op} answered {o.status or o.error} after {o.latency:.2f}s")
            for o in sorted(unavailable, key=lambda o: -o.latency)[:5]:
                e = next(e for e in chosen if e["down"] <= o.start <= e["restart"])
                log(f"slowest 503 while down: {o.latency:.3f}s (client stalled {stalled(stalls, o):.3f}s), started {o.start - e['down']:.3f}s after the stop, "
                    f"{o.start - e['restart']:+.3f}s from the restart command, {e['up'] - o.start:.3f}s before it was up")
            if not unavailable:
                failures.append("no request was made while PostgreSQL was down")
            if figures["down_503_max_service_latency_s"] > DOWN_LATENCY_LIMIT:
                failures.append("503 slower than 1 s while down")
            if bad_answers:
                failures.append("non-503 answers while down")
            if figures["stop_recovery_max_s"] > RECOVERY_LIMIT:
                failures.append("no 2xx within 2 s of PostgreSQL being back")
        if kind == "freeze":
            during = [o for e in chosen for o in by_start if e["down"] <= o.start <= e["up"]]
            figures["frozen_requests"] = len(during)
            figures["frozen_max_latency_s"] = round(max((o.latency for o in during), default=0), 3)
            figures["frozen_503_max_latency_s"] = round(
                max((o.latency for o in during if o.status == 503), default=0), 3)
            figures["frozen_over_1s"] = sum(1 for o in during if o.latency > DOWN_LATENCY_LIMIT)
            figures["frozen_timeouts"] = sum(1 for o in during if o.error == "timeout")
            if figures["freeze_recovery_max_s"] > RECOVERY_LIMIT:
                failures.append("no 2xx within 2 s of PostgreSQL being thawed")
    return figures


def next_fault(events, event):
    """When the fault after `event` began (or a minute later if none did)."""
    return min((e["start"] for e in events if e["start"] > event["start"]), default=event["up"] + 60)


def restart_of(events, outcome):
    """When PostgreSQL was started again after the stop during which `outcome` began."""
    return next(e["restart"] for e in events if e["down"] <= outcome.start <= e["restart"])


def main():
    arguments = parse_arguments()
    random.seed(arguments.seed)
    cluster = PostgresCluster(arguments.pg_data, arguments.pg_port, arguments.pg_bin, arguments.database)
    database_url = f"postgresql://postgres@127.0.0.1:{arguments.pg_port}/{arguments.database}"
    environment = {"DATABASE_URL": database_url, "LOG_LEVEL": os.environ.get("LOG_LEVEL", "warning")}
    supervisor = ServiceSupervisor(arguments.binary, arguments.port, environment,
                                   os.path.join(arguments.work_dir, "service.log"))
    faults = Faults(cluster, supervisor, arguments.full, arguments.seed, arguments.faults)
    stop_requested = threading.Event()
    try:
        supervisor.start()
        asyncio.run(wait_ready(arguments.port))
        key = cli(arguments.binary, environment, "keys", "create", "--name", "lost-writes", "--scope", "admin")
        cli(arguments.binary, environment, "providers", "add", PROVIDER, "--service", "apns",
            "--topic", "com.example.app")
        workload = Workload(arguments.port, key, arguments.writers, arguments.timeout, arguments.seed)
        log(f"{arguments.writers} writers, faults: {' '.join(faults.schedule)}")
        started = time.monotonic()

        async def drive():
            fault_thread = asyncio.to_thread(faults.run, stop_requested)
            await workload.run_until(fault_thread)

        asyncio.run(drive())
        elapsed = time.monotonic() - started
        cluster.wait_accepting()
        time.sleep(2)  # requests the client gave up on may still commit; let them
        table_rows = [tuple(row) for row in cluster.psql(
            f"SELECT provider, token, user_id FROM devices WHERE provider = '{PROVIDER}'")]
        listed = asyncio.run(listed_tokens(arguments.port, workload.headers, 10))
    finally:
        stop_requested.set()
        faults.done.wait(30)
        cluster.thaw()
        supervisor.stop()

    figures, failures = analyse(workload.outcomes, table_rows, listed, faults.events, workload.stalls)
    figures["service_starts"] = supervisor.starts
    figures["duration_s"] = round(elapsed, 1)
    figures["throughput_per_s"] = round(len(workload.outcomes) / elapsed)
    for name, value in figures.items():
        print(f"{name}: {value}")
    if supervisor.starts != 1 + sum(1 for e in faults.events if e["kind"] == "kill"):
        failures.append(f"the service exited on its own ({supervisor.starts} starts)")
    verdict = "PASS" if not failures else "FAIL (" + ", ".join(failures) + ")"
    print(f"lost-writes {verdict}: {figures['registrations_acknowledged']} acknowledged registrations, "
          f"{figures['deletes_acknowledged']} acknowledged deletes, {figures['rows']} rows; lost={figures['lost']} "
          f"resurrected={figures['resurrected']} unexpected={figures['unexpected']} "
          f"duplicates={figures['duplicates']}; 503 while down max {figures.get('down_503_max_service_latency_s', '-')}s, "
          f"2xx again within {figures.get('stop_recovery_max_s', '-')}s of PostgreSQL back; "
          f"faults: {len(faults.events)} ({' '.join(sorted(set(e['kind'] for e in faults.events)))})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
