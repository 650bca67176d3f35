#!/usr/bin/env python3
"""Slowloris against a running device-registry over loopback, with a probe client alongside.

Keeps --connections sockets open for --duration seconds, each trickling a request head that
never ends: half send one byte about every second, half one header line about every second.
A socket the server closes is replaced until the duration is over; then the remaining ones
keep trickling until the server closes them too. Every slow socket must be closed by the
server (EOF or reset) within --header-timeout + --slack seconds of its first byte; this script
never closes one itself before that.

Meanwhile a probe client makes normal requests one after another (GET /healthz and an
authenticated GET /v1/users/u/devices, each on a fresh connection) and records latencies.

Prints the probe's count, p50, p99 and max, and the slow sockets opened, closed by the server
(and how many got a 408 first), and late. Exits 1 if a probe request failed or a slow socket
outlived the header timeout + slack.
"""

import argparse
import errno
import itertools
import resource
import selectors
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


class SlowSocket:
    def __init__(self, sock, serial, now):
        self.sock = sock
        self.serial = serial
        self.started = now  # first byte sent right after connecting
        self.next_send = now + 1.0
        self.by_byte = serial % 2 == 0
        self.pending = b""
        self.lines = itertools.count()
        self.received = b""
        self.open_line(first=True)

    def open_line(self, first=False):
        if first:
            self.pending = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        else:
            self.pending += b"X-Slow-%d: %d\r\n" % (next(self.lines), self.serial)

    def trickle(self):
        """Sends the next byte or line; returns False when the server has closed."""
        if not self.pending:
            self.open_line()
        if self.by_byte:
            piece, self.pending = self.pending[:1], self.pending[1:]
        else:
            end = self.pending.find(b"\n") + 1 or len(self.pending)
            piece, self.pending = self.pending[:end], self.pending[end:]
        try:
            self.sock.send(piece)
        except (BrokenPipeError, ConnectionResetError):
            return False
        except BlockingIOError:
            self.pending = piece + self.pending
        return True


def slow_connect(serial):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(5)
    sock.connect((HOST, args.port))
    sock.setblocking(False)
    now = time.monotonic()
    slow = SlowSocket(sock, serial, now)
    # First piece right away: the header timeout starts with the first byte.
    slow.trickle()
    return slow


def probe_client(stop, latencies, failures):
    targets = [
        (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 200),
        (
            b"GET /v1/users/u/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + args.key.encode()
            + b"\r\nConnection: close\r\n\r\n",
            200,
        ),
    ]
    for i in itertools.count():
        if stop.is_set():
            return
        data, want = targets[i % 2]
        start = time.monotonic()
        try:
            with socket.create_connection((HOST, args.port), timeout=args.probe_timeout) as s:
                s.sendall(data)
                answer = b""
                while True:
                    piece = s.recv(65536)
                    if not piece:
                        break
                    answer += piece
            status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None
            if status != want:
                failures.append(f"{data.split(b' ')[1].decode()}: status {status}")
            else:
                latencies.append(time.monotonic() - start)
        except OSError as e:
            failures.append(f"{data.split(b' ')[1].decode()}: {e}")
        time.sleep(args.probe_pause)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
        if min(need, hard) < need:
            sys.exit(f"slowloris: need {need} file descriptors, the hard limit is {hard}")

    selector = selectors.DefaultSelector()
    serials = itertools.count(1)
    live = {}
    opened = closed_by_server = got_408 = connect_failures = 0
    late = []  # (serial, seconds it lived)
    lifetimes = []
    limit = args.header_timeout + args.slack

    stop = threading.Event()
    latencies, failures = [], []
    prober = threading.Thread(target=probe_client, args=(stop, latencies, failures), daemon=True)

    def close_by_server(slow, now):
        nonlocal closed_by_server, got_408
        selector.unregister(slow.sock)
        slow.sock.close()
        del live[slow.serial]
        closed_by_server += 1
        lived = now - slow.started
        lifetimes.append(lived)
        if b" 408 " in slow.received[:20]:
            got_408 += 1
        if lived > limit:
            late.append((slow.serial, lived))

    begin = time.monotonic()
    end_of_attack = begin + args.duration
    hard_end = end_of_attack + limit + 5
    prober.start()
    while True:
        now = time.monotonic()
        if now >= hard_end:
            break
        attacking = now < end_of_attack
        if not attacking and not live:
            break
        # Top up, a bounded number per turn so connects spread over time.
        if attacking:
            for _ in range(min(50, args.connections - len(live))):
                try:
                    slow = slow_connect(next(serials))
                except OSError:
                    connect_failures += 1
                    break
                opened += 1
                live[slow.serial] = slow
                selector.register(slow.sock, selectors.EVENT_READ, slow)
        for key, _ in selector.select(timeout=0.05):
            slow = key.data
            try:
                data = slow.sock.recv(4096)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            except BlockingIOError:
                continue
            if data:
                slow.received += data
            else:
                close_by_server(slow, time.monotonic())
        now = time.monotonic()
        for slow in list(live.values()):
            if now >= slow.next_send:
                slow.next_send = now + 1.0
                if not slow.trickle():
                    close_by_server(slow, now)
                    continue
            if now - slow.started > limit + 5:
                # Far past the deadline: give up on it (counted as left open by the server).
                late.append((slow.serial, now - slow.started))
                selector.unregister(slow.sock)
                slow.sock.close()
                del live[slow.serial]
    left_open = len(live)
    for slow in live.values():
        late.append((slow.serial, time.monotonic() - slow.started))
        slow.sock.close()
    stop.set()
    prober.join(timeout=args.probe_timeout + 1)

    print(
        f"slowloris: {args.connections} slow connections for {args.duration:g} s, "
        f"header timeout {args.header_timeout:g} s (+{args.slack:g} s slack)"
    )
    if latencies:
        ms = lambda s: f"{s * 1000:.1f} ms"
        print(
            f"slowloris: probe {len(latencies) + len(failures)} requests, {len(failures)} failed, "
            f"p50 {ms(percentile(latencies, 50))}, p99 {ms(percentile(latencies, 99))}, max {ms(max(latencies))}"
        )
    else:
        print(f"slowloris: probe 0 successful requests, {len(failures)} failed")
    if lifetimes:
        print(
            f"slowloris: slow sockets {opened} opened, {closed_by_server} closed by the server "
            f"({got_408} after a 408), {len(late)} late or left open; lifetime p50 {percentile(lifetimes, 50):.1f} s, "
            f"max {max(lifetimes):.1f} s; {connect_failures} connect failures"
        )
    for failure in failures[:10]:
        print(f"FAIL probe {failure}")
    for serial, lived in late[:10]:
        print(f"FAIL slow socket {serial} open for {lived:.1f} s (limit {limit:g} s)")
    ok = not failures and not late and latencies and closed_by_server == opened and left_open == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--connections", type=int, default=500)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--header-timeout", type=float, default=10)
    parser.add_argument("--slack", type=float, default=3)
    parser.add_argument("--probe-timeout", type=float, default=5)
    parser.add_argument("--probe-pause", type=float, default=0.05)
    args = parser.parse_args()
    main()
