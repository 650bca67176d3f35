"""Helpers for `scripts/bench ring`: DialStack webhooks signed as DialStack signs them.

  signed SECRET USER COUNT PREFIX      COUNT webhooks "<signature>\\t<body>", ids PREFIX-0…, for wrk
  paced BASE SECRET USER RATE SECONDS  webhooks at RATE/s for SECONDS (open loop, 64 kept-alive
                                       connections, one thread); prints p50/p99 from each one's
                                       scheduled start to its answer, and on stderr where the
                                       service says their time went (`call_event_ring_seconds{stage}`
                                       over the run), what the disk under the cluster did meanwhile
                                       (fsync_probe) and, with RING_SINK_LOG, when each push
                                       reached the sink
  faults BASE SECRET USER RATE SECONDS EVERY MOCK_PID MOCK_URL CA_FILE DATABASE_URL
                                       the same with `ringing_at` = the scheduled start, and
                                       SIGUSR1 to MOCK_PID (its fault proxy black-holes) every
                                       EVERY s; reads what the mock accepted, prints the figures
"""
import datetime
import gc
import hashlib
import hmac
import http.client
import json
import os
import queue
import re
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse


def webhook(secret, user, event_id, ringing_at=None):
    data = {"call_id": "call-" + event_id, "user_id": user, "from_number": "+14155551234",
            "from_name": "Bench Caller", "to_number": "+14155559876"}
    if ringing_at is not None:
        data["ringing_at"] = rfc3339(ringing_at)
    body = json.dumps({"id": event_id, "type": "call.mobile_push_wakeup", "data": data}, separators=(",", ":"))
    t = str(int(time.time()))
    mac = hmac.new(secret.encode(), (t + "." + body).encode(), hashlib.sha256).hexdigest()
    return "t=%s,v1=%s" % (t, mac), body


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds")


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p / 100))] if sorted_values else 0


def signed(secret, user, count, prefix):
    for n in range(count):
        signature, body = webhook(secret, user, "%s-%d" % (prefix, n))
        sys.stdout.write(signature + "\t" + body + "\n")


RING_STAGES = ["claim_asked", "connected", "server_began", "server_read", "devices_read", "claimed", "sending", "handed_to_sender", "push_answered", "answered"]


def ring_stage_buckets(base):
    """{stage: [(upper bound in s, cumulative count)]} of the service's `call_event_ring_seconds`."""
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    buckets = {}
    pattern = re.compile(r'^call_event_ring_seconds_bucket\{(.*)\} (\S+)$')
    for line in text.splitlines():
        found = pattern.match(line)
        if not found:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1)))
        bound = float("inf") if labels["le"] == "+Inf" else float(labels["le"])
        buckets.setdefault(labels["stage"], []).append((bound, float(found.group(2))))
    return {stage: sorted(counts) for stage, counts in buckets.items()}


def bucket_quantile(counts, q):
    """As PromQL's histogram_quantile: linear within the bucket the q-th observation falls in."""
    total = counts[-1][1] if counts else 0
    if total == 0:
        return float("nan")
    rank, lower, below = q * total, 0.0, 0.0
    for bound, cumulative in counts:
        if cumulative >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * (rank - below) / max(cumulative - below, 1e-9)
        lower, below = bound, cumulative
    return lower


def report_ring_stages(before, after):
    """Per stage, over the rings between the two scrapes: p50/p99 from the engine taking the ring."""
    parts = []
    for stage in RING_STAGES:
        now, then = after.get(stage, []), dict(before.get(stage, []))
        counts = [(bound, cumulative - then.get(bound, 0)) for bound, cumulative in now]
        if not counts or counts[-1][1] == 0:
            continue
        parts.append("%s %.1f/%.1f" % (stage, bucket_quantile(counts, 0.5) * 1000,
                                       bucket_quantile(counts, 0.99) * 1000))
    if parts:
        sys.stderr.write("ring stages in the service, from the engine taking it (p50/p99 ms, by buckets): %s\n"
                         % ", ".join(parts))


def cluster_directories():
    """The bench cluster's data directory and where its WAL really is (PG_WAL_IN_MEMORY=1 puts it
    on tmpfs), from DATABASE_URL; None when there is none to ask."""
    if not os.environ.get("DATABASE_URL"):
        return None
    data = subprocess.run(["psql", "-XtA", os.environ["DATABASE_URL"], "-c", "SHOW data_directory"],
                          capture_output=True, text=True).stdout.strip()
    return (data, os.path.realpath(os.path.join(data, "pg_wal"))) if data else None


def filesystem_of(path):
    """The type of the filesystem PATH is on (the longest mount point above it)."""
    best, kind = "", "?"
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            point = fields[1].replace("\\040", " ")
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
                best, kind = point, fields[2]
    return kind


def fsync_probe(directory, stop, every=0.01):
    """8 KiB written and fdatasync'd in DIRECTORY every EVERY s until STOP is set, as a commit
    flushes its WAL: the flush times in s. A durable commit waits for one such flush, so the
    probe's tail is a floor under the tail of a ring's claim on that disk."""
    path = os.path.join(directory, "fsync-probe-%d" % os.getpid())
    times, block = [], os.urandom(8192)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while not stop.wait(every):
            os.pwrite(descriptor, block, 8192 * (len(times) % 128))
            started = time.monotonic()
            os.fdatasync(descriptor)
            times.append(time.monotonic() - started)
    finally:
        os.close(descriptor)
        os.unlink(path)
    return sorted(times)


def raw_webhook(host, signature, body):
    """The bytes of one webhook POST on a kept-alive HTTP/1.1 connection."""
    body = body.encode()
    return (("POST /v1/webhooks/dialstack HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
             "X-DialStack-Signature: %s\r\nContent-Length: %d\r\n\r\n") % (host, signature, len(body))).encode() + body


def complete_response(buffer):
    """(status, body, rest) once BUFFER holds a whole HTTP/1.1 response (Content-Length or
    chunked), else None."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = buffer[:head_end].decode("latin-1").lower()
    status = int(head.split(" ", 2)[1])
    found = re.search(r"\ncontent-length:\s*(\d+)", head)
    if found:
        end = head_end + 4 + int(found.group(1))
        return (status, buffer[head_end + 4:end], buffer[end:]) if len(buffer) >= end else None
    last = buffer.find(b"\r\n0\r\n\r\n", head_end)  # chunked: the body is only searched for words
    return (status, buffer[head_end + 4:last], buffer[last + 7:]) if last >= 0 else None


def says_close(buffer):
    """Whether the response head at the start of BUFFER says `Connection: close` (the service
    says so on a connection's last answer, MAX_REQUESTS_PER_CONNECTION, 1,000 by default)."""
    head = buffer[:buffer.find(b"\r\n\r\n")].lower()
    return re.search(rb"\nconnection:\s*close", head) is not None


def sink_arrivals(path):
    """{event id: first arrival at the sink, wall clock s} from the sink's ring log
    ("<µs since the epoch> <event id>" per push to the ringing token)."""
    arrivals = {}
    if path and os.path.exists(path):
        with open(path) as log:
            for line in log:
                fields = line.split()
                if len(fields) == 2 and fields[1] != "-":
                    arrivals.setdefault(fields[1], int(fields[0]) / 1e6)
    return arrivals


def paced(base, secret, user, rate, seconds, connections=64):
    """Open loop: webhook n is due at start + n / rate whatever the answers do, and its latency
    counts from then, so a slow answer delays (and is charged to) the ones queued behind it.
    One thread and non-blocking sockets (selectors), the requests signed beforehand: the client's
    own share of a ring's time is a wake-up and a few system calls, not 64 threads handing
    Python's lock to each other on two busy cores (that client added ~3 ms at p50, ~12 ms at p99
    to the service's own `answered` stage). With RING_SINK_LOG (the sink's log of the pushes to
    the ringing token, `start_sink` with sink_ring_token) it also prints, on stderr, each
    webhook's scheduled start to its push reaching the sink."""
    url = urllib.parse.urlsplit(base)
    stages_before = ring_stage_buckets(base)
    total = int(rate * seconds)
    prefix = "paced-%d" % time.time_ns()
    host = "%s:%d" % (url.hostname, url.port)
    requests = [raw_webhook(host, *webhook(secret, user, "%s-%d" % (prefix, n))) for n in range(total)]
    selector = selectors.DefaultSelector()

    def connect():
        connection = socket.create_connection((url.hostname, url.port))
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.setblocking(False)
        return connection

    idle = [connect() for _ in range(connections)]
    in_flight = {}  # socket -> [n, scheduled, buffer]
    latencies, failures, by_second = [], [], {}
    # The disk under the cluster's data directory, probed beside the rings (see fsync_probe).
    directories, probe_stop, flushes = cluster_directories(), threading.Event(), []
    if directories:
        probe = threading.Thread(target=lambda: flushes.extend(fsync_probe(directories[0], probe_stop)))
        probe.start()
    gc.disable()  # a collection's pause would be charged to the rings waiting behind it
    start = time.monotonic() + 0.1
    wall_start = time.time() + (start - time.monotonic())
    sent = 0
    while sent < total or in_flight:
        timeout = max(0.0, start + sent / rate - time.monotonic()) if sent < total else 1.0
        for key, _ in selector.select(timeout):
            connection = key.fileobj
            state = in_flight[connection]
            chunk = connection.recv(65536)
            if not chunk:
                raise SystemExit("the service closed a webhook connection")
            state[2] += chunk
            answer = complete_response(state[2])
            if answer is None:
                continue
            elapsed = time.monotonic() - state[1]
            status, body, _ = answer
            if status == 200 and b'"state":"done"' in body and b'"status":"sent"' in body:
                latencies.append(elapsed)
                by_second.setdefault(int(state[1] - start), []).append(elapsed)
            else:
                failures.append(status)
            selector.unregister(connection)
            del in_flight[connection]
            if says_close(state[2]):
                # The service closes it after this answer: a request sent on it would be reset.
                connection.close()
            else:
                idle.append(connection)
        now = time.monotonic()
        while sent < total and start + sent / rate <= now:
            # All busy: one more connection, as a client pool would open (the due time still counts).
            connection = idle.pop() if idle else connect()
            connection.sendall(requests[sent])
            in_flight[connection] = [sent, start + sent / rate, b""]
            selector.register(connection, selectors.EVENT_READ)
            sent += 1
    gc.enable()
    for connection in idle:
        connection.close()
    latencies.sort()
    if directories:
        probe_stop.set()
        probe.join()
        data, wal = directories
        sys.stderr.write("the cluster's disk meanwhile (%s, %s): fdatasync of 8 KiB every 10 ms, %d flushes,"
                         " p50 %.1f ms, p99 %.1f ms, max %.1f ms; the WAL in %s (%s)\n"
                         % (data, filesystem_of(data), len(flushes), percentile(flushes, 50) * 1000,
                            percentile(flushes, 99) * 1000, (flushes[-1] if flushes else 0) * 1000, wal,
                            filesystem_of(wal)))
    if failures:
        # What the failed ones were answered (a status, or 200 for one not `done` and `sent`).
        sys.stderr.write("failed webhooks by status: %s\n" % sorted(
            {status: failures.count(status) for status in failures}.items()))
    report_ring_stages(stages_before, ring_stage_buckets(base))
    # Second by second, so a tail is placed in the job's phases (intake, then sending).
    sys.stderr.write("rings by second from the first (p50/p99/max ms): %s\n" % "; ".join(
        "%d: %.1f/%.1f/%.1f" % (second, percentile(sorted(values), 50) * 1000,
                                percentile(sorted(values), 99) * 1000, max(values) * 1000)
        for second, values in sorted(by_second.items())))
    report_sink_arrivals(os.environ.get("RING_SINK_LOG"), prefix, total, rate, wall_start)
    print("%d %d %.1f %.1f" % (len(latencies), len(failures), percentile(latencies, 50) * 1000,
                               percentile(latencies, 99) * 1000))


def report_sink_arrivals(path, prefix, total, rate, wall_start):
    """On stderr: each webhook's scheduled start to its push's first arrival at the sink (the
    issue's "request to the sink"), from the sink's ring log; its access log is written after the
    answer, so it is read until every ring is there or for at most 2 s."""
    if not path:
        return
    deadline = time.monotonic() + 2
    while True:
        arrivals = sink_arrivals(path)
        if sum(1 for key in arrivals if key.startswith(prefix + "-")) >= total or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    times = sorted(arrivals["%s-%d" % (prefix, n)] - (wall_start + n / rate)
                   for n in range(total) if "%s-%d" % (prefix, n) in arrivals)
    sys.stderr.write("webhook scheduled → push at the sink: %d of %d arrived, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n"
                     % (len(times), total, percentile(times, 50) * 1000, percentile(times, 99) * 1000,
                        (times[-1] if times else 0) * 1000))


def faults(base, secret, user, rate, seconds, every, mock_pid, mock_url, ca_file, database_url, ttl=30):
    """Open loop as `paced`, each webhook's `ringing_at` its scheduled start (wall clock), while the
    mock's fault proxy black-holes the open connection every EVERY s. Then, from what the mock
    accepted (its records carry milliseconds): lost (never accepted), late (accepted after
    ringing_at + ttl), doubled (accepted twice), and p50/p99 from ringing_at to the first accept."""
    url = urllib.parse.urlsplit(base)
    total = int(rate * seconds)
    prefix = "faults-%d" % time.time_ns()
    due = queue.Queue()
    answers, lock = {}, threading.Lock()

    def worker():
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        while True:
            item = due.get()
            if item is None:
                return
            n, ringing_at = item
            signature, body = webhook(secret, user, "%s-%d" % (prefix, n), ringing_at)
            connection.request("POST", "/v1/webhooks/dialstack", body=body, headers={
                "Content-Type": "application/json", "X-DialStack-Signature": signature})
            response = connection.getresponse()
            answer = response.read()
            with lock:
                answers[n] = response.status == 200 and b'"status":"sent"' in answer

    # A blackhole stalls the webhooks it catches for about a second: enough connections that the
    # generator never queues behind them (200/s × a few seconds).
    workers = [threading.Thread(target=worker) for _ in range(512)]
    for thread in workers:
        thread.start()
    start = time.time() + 0.1
    blackholes = [start + k * every for k in range(1, int(seconds / every) + 1) if k * every < seconds] if every else []
    faults_made = len(blackholes)
    for n in range(total):
        scheduled = round(start + n / rate, 3)  # as `ringing_at` carries it
        while blackholes and blackholes[0] <= scheduled:
            pause = blackholes.pop(0) - time.time()
            if pause > 0:
                time.sleep(pause)
            os.kill(mock_pid, signal.SIGUSR1)
        pause = scheduled - time.time()
        if pause > 0:
            time.sleep(pause)
        due.put((n, scheduled))
    for _ in workers:
        due.put(None)
    for thread in workers:
        thread.join()

    # A webhook answered at its budget keeps sending: wait until every event is recorded done.
    def psql(query):
        return subprocess.run(["psql", "-XtA", database_url, "-c", query], check=True, capture_output=True,
                              text=True).stdout.strip()
    deadline = time.time() + ttl + 10
    while time.time() < deadline and psql("SELECT count(*) FROM call_events WHERE id LIKE '%s-%%' AND state"
                                          " = 'running'" % prefix) != "0":
        time.sleep(0.5)
    maybe = psql("SELECT count(*) FROM call_events WHERE id LIKE '%s-%%' AND result @> "
                 "'[{\"maybe_delivered\": true}]'" % prefix)

    # The mock speaks HTTP/2 only: curl, not http.client.
    records = json.loads(subprocess.run(["curl", "-sSf", "--http2", "--cacert", ca_file, mock_url + "/_mock/requests"],
                                        check=True, capture_output=True).stdout)
    accepted = {}
    pattern = re.compile(re.escape(prefix) + r"-(\d+)")
    for record in records:
        found = pattern.search(record["body"]) if record["endpoint"] == "apns" else None
        if found and record["status"] == 200:
            at = datetime.datetime.fromisoformat(record["received_at"]).timestamp()
            accepted.setdefault(int(found.group(1)), []).append(at)
    latencies, late = [], 0
    for n in range(total):
        ringing_at = round(start + n / rate, 3)
        if n in accepted:
            latencies.append(min(accepted[n]) - ringing_at)
            late += any(at > ringing_at + ttl for at in accepted[n])
    latencies.sort()
    print("%d rings at %g/s for %gs, the open connection black-holed every %gs (%d times)"
          % (total, rate, seconds, every, faults_made))
    print("sent %d (webhook answered sent: %d), lost %d, late %d, doubled %d (service recorded maybe_delivered: %s)"
          % (total, sum(answers.values()), total - len(accepted), late,
             sum(1 for ats in accepted.values() if len(ats) > 1), maybe))
    print("ringing_at to the mock: p50 %.3f s, p99 %.3f s, max %.3f s (target: 0 lost, 0 late, p99 <= 1.5 s)"
          % (percentile(latencies, 50), percentile(latencies, 99), latencies[-1] if latencies else 0))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "signed":
        signed(args[0], args[1], int(args[2]), args[3])
    elif command == "paced":
        paced(args[0], args[1], args[2], float(args[3]), float(args[4]))
    elif command == "faults":
        faults(args[0], args[1], args[2], float(args[3]), float(args[4]), float(args[5]), int(args[6]), args[7],
               args[8], args[9])
    else:
        sys.exit(__doc__)
