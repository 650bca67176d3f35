"""Graceful shutdown under load, driven by scripts/shutdown-under-load.

64 clients register distinct tokens continuously over keep-alive connections; after a few
seconds the service gets SIGTERM. Then:

  * every request that was sent got a complete response (none cut by a reset or a close; new
    connections may be refused once the listener is closed, after the drain);
  * the process exits within the drain and the grace period (SHUTDOWN_DRAIN_SECONDS, default 5,
    plus SHUTDOWN_GRACE_SECONDS, default 10);
  * every acknowledged registration is in the table (acknowledged = committed), and so is no
    registration that was answered 4xx.
"""

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_client import Connection, NoResponse, logged  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402
from registry_process import add_service_arguments, cli, wait_ready  # noqa: E402

PROVIDER = "ios"


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_service_arguments(parser)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--load-seconds", type=float, default=3.0, help="load before SIGTERM")
    parser.add_argument("--rounds", type=int, default=1, help="start, load, SIGTERM this many times")
    parser.add_argument("--hold-ms", type=int, default=700,
                        help="in rounds 1, 3, 5…, just before SIGTERM, lock the devices table this long (0: never), "
                             "so that the requests in flight are in the middle of their database work; below the 1 s "
                             "statement timeout")
    parser.add_argument("--timeout", type=float, default=15.0, help="client timeout per request, seconds")
    parser.add_argument("--seed", type=int, default=11)
    return parser.parse_args()


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def grace_seconds():
    return float(os.environ.get("SHUTDOWN_GRACE_SECONDS", "10"))


def drain_seconds():
    return float(os.environ.get("SHUTDOWN_DRAIN_SECONDS", "5"))


class Round:
    """One service process: load, SIGTERM, and what every client saw."""

    def __init__(self, number, arguments, headers, environment, log_file, cluster):
        self.number = number
        self.arguments = arguments
        self.headers = headers
        self.environment = environment
        self.log_file = log_file
        self.cluster = cluster
        self.outcomes = []
        self.term_at = None
        self.exit_at = None
        self.exit_code = None

    async def client(self, index, process):
        rng = random.Random(self.arguments.seed * 100_000 + self.number * 1000 + index)
        connection = Connection("127.0.0.1", self.arguments.port, self.arguments.timeout)
        for sequence in range(1_000_000):  # bounded; the process exit ends it long before
            if process.poll() is not None:
                break
            token = f"{self.number:04x}{index:04x}{sequence:08x}{rng.getrandbits(192):048x}"
            user = f"shutdown-{self.number}-{index}-{sequence // 10}"
            body = {"user_id": user, "provider": PROVIDER, "type": "apns", "token": token}
            outcome = await logged(connection, "register", token, user, "POST", "/v1/devices", self.headers, body)
            self.outcomes.append(outcome)
            if outcome.error == "refused" or (outcome.status is not None and outcome.status >= 500):
                await asyncio.sleep(0.05)
        connection.close()

    async def run(self):
        process = subprocess.Popen(
            [self.arguments.binary, "serve", "--port", str(self.arguments.port)],
            env={**os.environ, **self.environment}, stdout=self.log_file, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        try:
            await wait_ready(self.arguments.port, process)
            clients = [asyncio.create_task(self.client(index, process)) for index in range(self.arguments.clients)]
            await asyncio.sleep(self.arguments.load_seconds)
            holder = None
            # Odd rounds SIGTERM mid-transaction; even rounds with requests between connections' turns.
            if self.arguments.hold_ms and self.number % 2 == 0:
                holder = self.cluster.hold_lock("devices", self.arguments.hold_ms / 1000)
                await asyncio.sleep(min(0.2, self.arguments.hold_ms / 3000))  # writes queue up behind it
            self.term_at = time.monotonic()
            process.send_signal(signal.SIGTERM)
            if holder:
                await asyncio.to_thread(holder.wait, 30)
            deadline = self.term_at + drain_seconds() + grace_seconds() + 10
            while process.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            self.exit_at = time.monotonic()
            await asyncio.gather(*clients)
        finally:
            if process.poll() is None:
                process.kill()
            self.exit_code = process.wait()


def main():
    arguments = parse_arguments()
    cluster = PostgresCluster(arguments.pg_data, arguments.pg_port, arguments.pg_bin, arguments.database)
    database_url = f"postgresql://postgres@127.0.0.1:{arguments.pg_port}/{arguments.database}"
    environment = {"DATABASE_URL": database_url, "LOG_LEVEL": os.environ.get("LOG_LEVEL", "warning")}
    rounds = []
    with open(os.path.join(arguments.work_dir, "service.log"), "ab") as log_file:
        headers = None
        for number in range(arguments.rounds):
            if headers is None:
                # The key and provider need the schema, which the first `serve` creates.
                bootstrap = subprocess.Popen([arguments.binary, "serve", "--port", str(arguments.port)],
                                             env={**os.environ, **environment}, stdout=log_file,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                try:
                    asyncio.run(wait_ready(arguments.port, bootstrap))
                finally:
                    bootstrap.terminate()
                    bootstrap.wait(30)
                key = cli(arguments.binary, environment, "keys", "create", "--name", "shutdown", "--scope", "admin")
                cli(arguments.binary, environment, "providers", "add", PROVIDER, "--service", "apns",
                    "--topic", "com.example.app")
                headers = {"Authorization": f"Bearer {key}"}
            round_ = Round(number, arguments, headers, environment, log_file, cluster)
            asyncio.run(round_.run())
            rounds.append(round_)
            log(f"round {number + 1}: SIGTERM at {time.strftime('%H:%M:%S', time.localtime(time.time() - (time.monotonic() - round_.term_at)))}, "
                f"exited {round_.exit_code} after {round_.exit_at - round_.term_at:.2f}s")

    present = {row[0] for row in cluster.psql(f"SELECT token FROM devices WHERE provider = '{PROVIDER}'")}
    return report(rounds, present, arguments.clients)


def report(rounds, present, clients):
    failures = []
    outcomes = [o for r in rounds for o in r.outcomes]
    acknowledged = [o for o in outcomes if o.verdict == "acknowledged"]
    failed = [o for o in outcomes if o.verdict == "failed"]
    # Sent but answered by nothing but a reset or a close: the cut requests.
    cut = [o for o in outcomes if o.status is None and o.sent]
    refused = [o for o in outcomes if o.error == "refused"]
    timeouts = [o for o in outcomes if o.error == "timeout"]
    in_flight = [o for r in rounds for o in r.outcomes if o.start <= r.term_at <= o.end]
    in_flight_answered = [o for o in in_flight if o.status is not None]
    in_flight_acknowledged = [o for o in in_flight if o.verdict == "acknowledged"]
    after_term = [o for r in rounds for o in r.outcomes if o.start > r.term_at]
    after_term_answered = [o for o in after_term if o.status is not None]
    # A 503 is a complete answer (the database was slow; the outcome is unknown); other 5xx are bugs.
    unavailable = [o for o in outcomes if o.status == 503]
    server_errors = [o for o in outcomes if o.status is not None and o.status >= 500 and o.status != 503]
    missing = [o for o in acknowledged if o.token not in present]
    failed_present = [o for o in failed if o.token in present]
    cut_present = [o for o in cut if o.token in present]
    exit_times = [r.exit_at - r.term_at for r in rounds]
    grace = grace_seconds()
    drain = drain_seconds()

    figures = {
        "rounds": len(rounds),
        "requests": len(outcomes),
        "acknowledged": len(acknowledged),
        "in_flight_at_sigterm": len(in_flight),
        "in_flight_answered": len(in_flight_answered),
        "in_flight_acknowledged": len(in_flight_acknowledged),
        "in_flight_latency_max_s": round(max((o.latency for o in in_flight), default=0), 3),
        "sent_after_sigterm_answered": len(after_term_answered),
        "cut": len(cut),
        "cut_on_reused_connection": sum(1 for o in cut if o.reused),
        "cut_but_committed": len(cut_present),
        "refused_new_connections": len(refused),
        "timeouts": len(timeouts),
        "503": len(unavailable),
        "5xx_other_than_503": len(server_errors),
        "acknowledged_missing": len(missing),
        "failed_but_present": len(failed_present),
        "exit_codes": " ".join(str(r.exit_code) for r in rounds),
        "exit_after_sigterm_max_s": round(max(exit_times), 3),
        "grace_s": grace,
        "drain_s": drain,
    }
    for name, value in figures.items():
        print(f"{name}: {value}")
    for o in (cut + timeouts + server_errors + unavailable)[:20]:
        round_ = next(r for r in rounds if o in r.outcomes)
        log(f"round {round_.number + 1}: {o.status or o.error} sent={o.sent} reused={o.reused} after {o.latency:.3f}s "
            f"(started {o.start - round_.term_at:+.3f}s from SIGTERM)")

    if cut:
        failures.append(f"{len(cut)} requests cut")
    if timeouts:
        failures.append(f"{len(timeouts)} requests timed out")
    if server_errors:
        failures.append(f"{len(server_errors)} 5xx answers other than 503")
    if missing:
        failures.append(f"{len(missing)} acknowledged registrations missing")
    if failed_present:
        failures.append(f"{len(failed_present)} refused registrations present")
    if any(r.exit_code != 0 for r in rounds):
        failures.append("non-zero exit")
    if max(exit_times) > drain + grace:
        failures.append("exit after the drain and grace period")
    if not in_flight:
        failures.append("no request was in flight at SIGTERM")
    verdict = "PASS" if not failures else "FAIL (" + ", ".join(failures) + ")"
    print(f"shutdown-under-load {verdict}: {len(rounds)} SIGTERM(s) under {len(outcomes)} requests from "
          f"{clients} clients; in flight {len(in_flight)}, answered "
          f"{len(in_flight_answered)}, cut {len(cut)}; exit within {max(exit_times):.2f}s (grace {grace:g}s); "
          f"{len(acknowledged)} acknowledged, {len(missing)} missing from the table")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
