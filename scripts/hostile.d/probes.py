#!/usr/bin/env python3
"""Hostile HTTP/1.1 probes against a running device-registry, over raw loopback sockets.

Each probe sends bytes no well-behaved client would, and states what must come back: the
status of the first response (a set), whether the server must close the connection, and how
many responses may appear. Every framing probe also carries a "smuggled" second request
(X-Request-ID smuggled-canary-N) placed where a parser with a different reading of the framing
would find a request; no response to it may ever appear, and the service's access log must
never mention it.

Usage: probes.py --port P --key K --log SERVICE_LOG [--only SUBSTRING] [--verbose]
Prints one line per failing probe and a summary; exits 1 on any failure.
Bounded: one connection per probe, each at most DEADLINE seconds.
"""

import argparse
import concurrent.futures
import re
import socket
import sys
import time

HOST = "127.0.0.1"
DEADLINE = 6.0  # seconds a probe may take in all
QUIET = 0.8  # after the expected responses, how long to keep listening for extra ones
CANARY = "smuggled-canary"

CLOSE = True  # the server must close the connection
OPEN = False  # the server must keep it open
ANY = None  # either


CONTROL = "control-canary"


def canary(n, tag=CANARY):
    return (f"GET /v1/{tag}-{n} HTTP/1.1\r\nHost: {HOST}\r\nX-Request-ID: {tag}-{n}\r\n\r\n").encode()


def request(method="GET", target="/healthz", headers=(), body=b"", version="HTTP/1.1", host=True):
    """Bytes of one request; Content-Length is never added: framing is the probe's business."""
    lines = [f"{method} {target} {version}".encode()]
    if host:
        lines.append(f"Host: {HOST}".encode())
    for header in headers:
        lines.append(header if isinstance(header, bytes) else header.encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body if isinstance(body, bytes) else body.encode())


def chunk(data):
    return b"%x\r\n" % len(data) + data + b"\r\n"


class Probe:
    def __init__(self, name, data, statuses, close=CLOSE, responses=1, answered_canary=False):
        self.name = name
        self.data = data  # bytes, or a list of bytes sent with a short pause between them
        self.statuses = set(statuses)
        self.close = close
        self.responses = responses  # how many final (non-1xx) responses are expected
        self.answered_canary = answered_canary  # control probes: the canary is a real request


def read_responses(sock, want, must_close, head_request):
    """Reads final responses until `want` arrived and then QUIET passed (or EOF). Returns
    (responses, closed_by_server, error) where responses are (status, headers) tuples."""
    buffer = b""
    responses = []
    closed = False
    error = None
    deadline = time.monotonic() + DEADLINE
    quiet_until = None
    while True:
        now = time.monotonic()
        limit = deadline if quiet_until is None else min(deadline, quiet_until)
        if must_close is CLOSE:
            limit = deadline  # wait for the close itself
        if now >= limit:
            break
        sock.settimeout(max(0.01, limit - now))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            closed = True
            break
        except OSError as e:
            error = str(e)
            break
        if not data:
            closed = True
            break
        buffer += data
        while True:
            parsed = parse_response(buffer, head_request and not responses)
            if parsed is None:
                break
            status, headers, buffer = parsed
            if status >= 200:
                responses.append((status, headers))
        if len(responses) >= want and quiet_until is None:
            quiet_until = time.monotonic() + QUIET
    # Whatever is left but incomplete still counts as "something answered".
    if buffer.strip() and not responses:
        error = f"unparseable answer {buffer[:60]!r}"
    return responses, closed, error


def parse_response(buffer, head_request=False):
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = buffer[:end].decode("latin-1").split("\r\n")
    try:
        status = int(head[0].split(" ")[1])
    except (IndexError, ValueError):
        raise ValueError(f"bad status line {head[0]!r}")
    headers = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    rest = buffer[end + 4 :]
    if head_request or status < 200 or status in (204, 304):
        return status, headers, rest
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body_end = rest.find(b"\r\n0\r\n\r\n")
        if rest.startswith(b"0\r\n\r\n"):
            return status, headers, rest[5:]
        if body_end < 0:
            return None
        return status, headers, rest[body_end + 7 :]
    length = int(headers.get("content-length", "0"))
    if len(rest) < length:
        return None
    return status, headers, rest[length:]


def first_bytes(probe):
    return probe.data[0] if isinstance(probe.data, list) else probe.data


def run(probe, port):
    """Returns (failure message or None, the canary ids answered)."""
    try:
        sock = socket.create_connection((HOST, port), timeout=DEADLINE)
    except OSError as e:
        return f"connect failed: {e}", []
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    send_error = None
    try:
        parts = probe.data if isinstance(probe.data, list) else [probe.data]
        for i, part in enumerate(parts):
            if i:
                time.sleep(0.2)
            sock.sendall(part)
    except (BrokenPipeError, ConnectionResetError) as e:
        send_error = e  # the server may close while a large probe is still being sent
    try:
        responses, closed, error = read_responses(sock, probe.responses, probe.close, first_bytes(probe).startswith(b"HEAD "))
    except ValueError as e:
        return str(e), []
    finally:
        sock.close()
    ids = [h.get("x-request-id", "") for _, h in responses]
    canaries = [i for i in ids if CANARY in i]
    problems = []
    if canaries:
        problems.append(f"SMUGGLED request answered ({', '.join(canaries)})")
    statuses = [s for s, _ in responses]
    if not responses:
        problems.append("no response" + (f" ({error})" if error else "") + (f" (send: {send_error})" if send_error else ""))
    elif statuses[0] not in probe.statuses:
        problems.append(f"status {statuses[0]}, want {sorted(probe.statuses)}")
    if len(responses) > probe.responses:
        problems.append(f"{len(responses)} responses {statuses}, want {probe.responses}")
    elif responses and len(responses) < probe.responses:
        problems.append(f"{len(responses)} responses {statuses}, want {probe.responses}")
    if probe.close is CLOSE and not closed:
        problems.append("connection left open")
    if probe.close is OPEN and closed:
        problems.append("connection closed")
    if probe.answered_canary and not any(CONTROL in i for i in ids):
        problems.append("control: the pipelined canary was not answered")
    return ("; ".join(problems) or None), canaries


def probes(key):
    n = iter(range(1, 10_000))
    P = []

    def smuggle(name, head_and_body, statuses, close=CLOSE, responses=1):
        """The canary follows the probe's bytes directly: only a parser that framed the body
        differently from the one we hold correct would see it as a request."""
        c = next(n)
        data = head_and_body(canary(c)) if callable(head_and_body) else head_and_body + canary(c)
        P.append(Probe(f"{name} [canary {c}]", data, statuses, close, responses))

    def plain(name, data, statuses, close=CLOSE, responses=1):
        P.append(Probe(name, data, statuses, close, responses))

    json = "Content-Type: application/json"
    auth = f"Authorization: Bearer {key}"
    post = lambda headers, body: request("POST", "/v1/devices", [json, auth, *headers], body)

    # --- Control: the canary is detectable when it really is a request. -----------------------
    c = next(n)
    P.append(Probe(f"control: pipelined canary is answered [canary {c}]",
                   request() + canary(c, CONTROL), {200}, OPEN, responses=2, answered_canary=True))

    # --- CL.TE / TE.CL and Content-Length games (400 and close) -------------------------------
    smuggle("CL.TE: Content-Length then Transfer-Encoding",
            lambda cn: post(["Content-Length: 5", "Transfer-Encoding: chunked"], b"0\r\n\r\n" + cn), {400})
    smuggle("TE.CL: Transfer-Encoding then Content-Length",
            lambda cn: post(["Transfer-Encoding: chunked", "Content-Length: 4"], b"%x\r\n" % len(cn) + cn + b"\r\n0\r\n\r\n"), {400})
    smuggle("CL.TE with TE: identity",
            lambda cn: post(["Content-Length: 5", "Transfer-Encoding: identity"], b"0\r\n\r\n" + cn), {400, 501})
    smuggle("CL.TE on GET", lambda cn: request("GET", "/healthz", ["Content-Length: 5", "Transfer-Encoding: chunked"], b"0\r\n\r\n" + cn), {400})
    smuggle("duplicate Content-Length, same value",
            lambda cn: post(["Content-Length: 2", "Content-Length: 2"], b"{}" + cn), {400})
    smuggle("conflicting Content-Length",
            lambda cn: post(["Content-Length: 2", f"Content-Length: {2 + len(cn)}"], b"{}" + cn), {400})
    smuggle("Content-Length list '2, 2'", lambda cn: post(["Content-Length: 2, 2"], b"{}" + cn), {400})
    smuggle("Content-Length '+2'", lambda cn: post(["Content-Length: +2"], b"{}" + cn), {400})
    smuggle("Content-Length '-1'", lambda cn: post(["Content-Length: -1"], b"{}" + cn), {400})
    smuggle("Content-Length hex '0x2'", lambda cn: post(["Content-Length: 0x2"], b"{}" + cn), {400})
    smuggle("Content-Length '2 0' (inner space)", lambda cn: post(["Content-Length: 2 0"], b"{}" + cn), {400})
    smuggle("Content-Length empty", lambda cn: post(["Content-Length:"], b"{}" + cn), {400})
    smuggle("Content-Length 20 digits (overflow)",
            lambda cn: post(["Content-Length: 18446744073709551618"], b"{}" + cn), {400})
    smuggle("Content-Length with space before colon",
            lambda cn: post(["Content-Length : 2"], b"{}" + cn), {400})
    smuggle("Content-Length with vertical tab", lambda cn: post([b"Content-Length:\x0b2"], b"{}" + cn), {400})

    # --- Obfuscated chunked ---------------------------------------------------------------------
    body_in_chunk = lambda cn: chunk(cn) + b"0\r\n\r\n"
    for label, te in [
        ("xchunked", b"Transfer-Encoding: xchunked"),
        ("'chunked, identity'", b"Transfer-Encoding: chunked, identity"),
        ("'identity, chunked'", b"Transfer-Encoding: identity, chunked"),
        ("'chunked, chunked'", b"Transfer-Encoding: chunked, chunked"),
        ("duplicated TE headers", b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"),
        ("TE chunked + TE identity headers", b"Transfer-Encoding: chunked\r\nTransfer-Encoding: identity"),
        ("quoted '\"chunked\"'", b'Transfer-Encoding: "chunked"'),
        ("vertical tab before chunked", b"Transfer-Encoding:\x0bchunked"),
        ("'chunked;q=1'", b"Transfer-Encoding: chunked;q=1"),
        ("gzip", b"Transfer-Encoding: gzip"),
    ]:
        # A parser that ignored the odd coding would read no body and take the chunk's content
        # (the canary) as the next request.
        smuggle(f"TE {label}", lambda cn, te=te: post([te], body_in_chunk(cn)), {400, 501})
        smuggle(f"TE {label} + Content-Length", lambda cn, te=te: post([te, "Content-Length: 0"], body_in_chunk(cn)), {400, 501})
    smuggle("TE with space before colon", lambda cn: post([b"Transfer-Encoding : chunked"], body_in_chunk(cn)), {400})
    smuggle("TE as obs-fold continuation", lambda cn: post([b"X-A: b", b" Transfer-Encoding: chunked"], body_in_chunk(cn)), {400})
    smuggle("TE value on a folded line", lambda cn: post([b"Transfer-Encoding:", b" chunked"], body_in_chunk(cn)), {400})
    # Legal spellings of chunked: the canary is chunk data, read as body, never answered.
    for label, te in [("' chunked' (OWS)", b"Transfer-Encoding:  chunked"), ("tab before chunked", b"Transfer-Encoding:\tchunked"),
                      ("uppercase CHUNKED", b"Transfer-Encoding: CHUNKED"), ("no space 'chunked'", b"Transfer-Encoding:chunked")]:
        smuggle(f"TE {label} is chunked", lambda cn, te=te: post([te], body_in_chunk(cn)), {400, 422}, OPEN)

    # --- Chunk sizes -----------------------------------------------------------------------------
    te = "Transfer-Encoding: chunked"
    smuggle("chunk size 2^64+ (huge hex)", lambda cn: post([te], b"10000000000000002\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk size 16 hex digits (Int overflow)", lambda cn: post([te], b"8000000000000002\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk size 30 leading zeros", lambda cn: post([te], b"0" * 30 + b"2\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("negative chunk size", lambda cn: post([te], b"-2\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk size '0x2'", lambda cn: post([te], b"0x2\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk size missing", lambda cn: post([te], b"\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk data longer than its size", lambda cn: post([te], b"1\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk data shorter than its size",
            lambda cn: post([te], b"%x\r\n{}\r\n0\r\n\r\n" % (len(cn) + 2) + cn + b"\r\n0\r\n\r\n"), {400})
    smuggle("bare LF after chunk size", lambda cn: post([te], b"2\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("bare LF after chunk data", lambda cn: post([te], b"2\r\n{}\n0\r\n\r\n" + cn), {400})
    smuggle("bare CR after chunk size", lambda cn: post([te], b"2\r{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk extension 5 KiB", lambda cn: post([te], b"2;" + b"e" * 5000 + b"\r\n{}\r\n0\r\n\r\n" + cn), {400})
    smuggle("chunk extension with bare LF inside",
            lambda cn: post([te], b"2;a=\nb\r\n{}\r\n0\r\n\r\n" + cn), {400})

    # --- Line endings ----------------------------------------------------------------------------
    smuggle("bare CR ends the request line", lambda cn: b"GET /healthz HTTP/1.1\rHost: x\r\n\r\n" + cn, {400})
    smuggle("bare CR inside a header hides TE",
            lambda cn: post([b"X-A: b\rTransfer-Encoding: chunked", "Content-Length: 0"], body_in_chunk(cn)), {400})
    smuggle("bare CR inside a header hides CL",
            lambda cn: request("GET", "/healthz", [b"X-A: b\rContent-Length: %d" % len(cn)], cn), {400})
    smuggle("bare LF line endings", lambda cn: b"GET /healthz HTTP/1.1\nHost: x\n\n" + cn, {400})
    smuggle("bare LF inside a header hides CL",
            lambda cn: request("GET", "/healthz", [b"X-A: b\nContent-Length: %d" % len(cn)], cn), {400})
    smuggle("CR CR LF", lambda cn: b"GET /healthz HTTP/1.1\r\r\nHost: x\r\n\r\n" + cn, {400})

    # --- NUL and control bytes -------------------------------------------------------------------
    for label, data in [
        ("NUL in method", b"G\x00ET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("NUL in target", b"GET /healthz\x00 HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("NUL in header name", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-\x00A: b\r\n\r\n"),
        ("NUL in header value", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n"),
        ("ESC in target", b"GET /heal\x1bthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("SOH in header value", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n"),
        ("DEL in header value", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x7fb\r\n\r\n"),
        ("space in target", b"GET /heal thz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("tabs as request-line separators", b"GET\t/healthz\tHTTP/1.1\r\nHost: x\r\n\r\n"),
        ("two spaces after method", b"GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("leading space before request line", b" GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("space before first header (obs-fold of request line)", b"GET /healthz HTTP/1.1\r\n Host: x\r\n\r\n"),
        ("header without colon", b"GET /healthz HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"),
        ("empty header name", b"GET /healthz HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n"),
    ]:
        smuggle(label, data, {400})
    plain("obs-text (0x80-0xFF) in a header value is allowed",
          request(headers=[b"X-A: caf\xe9"]), {200}, OPEN)

    # --- Obsolete line folding -------------------------------------------------------------------
    smuggle("obs-fold with space", request(headers=["X-A: a", " b"]), {400})
    smuggle("obs-fold with tab", request(headers=["X-A: a", "\tb"]), {400})

    # --- Host (RFC 9112 §3.2: HTTP/1.1 needs exactly one valid Host) --------------------------------
    smuggle("HTTP/1.1 without Host", request(host=False), {400})
    smuggle("duplicate Host", request(headers=["Host: other.example"]), {400})
    smuggle("Host with a space", request(host=False, headers=["Host: a b"]), {400})
    smuggle("Host with a path", request(host=False, headers=["Host: a/b"]), {400})
    smuggle("Host with userinfo", request(host=False, headers=["Host: u@a"]), {400})
    plain("empty Host is allowed", request(host=False, headers=["Host:"]), {200}, OPEN)
    plain("Host with port", request(host=False, headers=["Host: 127.0.0.1:8080"]), {200}, OPEN)
    plain("Host IPv6 literal", request(host=False, headers=["Host: [::1]:8080"]), {200}, OPEN)
    plain("HTTP/1.0 without Host answers and closes", request(version="HTTP/1.0", host=False), {200}, CLOSE)
    smuggle("HTTP/1.0 with duplicate Host", request(version="HTTP/1.0", headers=["Host: b"]), {400})

    # --- HTTP/1.0 with Transfer-Encoding (RFC 9112 §6.1: faulty framing) ---------------------------
    smuggle("HTTP/1.0 with TE chunked",
            lambda cn: request("POST", "/v1/devices", [json, auth, te, "Connection: keep-alive"], body_in_chunk(cn), "HTTP/1.0"), {400})
    smuggle("HTTP/1.0 with TE chunked + CL",
            lambda cn: request("POST", "/v1/devices", [json, auth, te, "Content-Length: 0", "Connection: keep-alive"], body_in_chunk(cn), "HTTP/1.0"), {400})

    # --- Versions, HTTP/2, target forms ------------------------------------------------------------
    smuggle("HTTP/2 prior-knowledge preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", {400, 505})
    smuggle("HTTP/2.0 request line", request(version="HTTP/2.0"), {400, 505})
    smuggle("HTTP/3.0 request line", request(version="HTTP/3.0"), {400, 505})
    smuggle("HTTP/0.9 simple request", b"GET /healthz\r\n", {400})
    smuggle("lowercase http/1.1", request(version="http/1.1"), {400})
    smuggle("version HTTP/1.1x", request(version="HTTP/1.1x"), {400})
    smuggle("version HTTP/11.1", request(version="HTTP/11.1"), {400, 505})
    plain("Upgrade: h2c is ignored", request(headers=["Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__"]), {200}, OPEN)
    # Absolute-form: this server is an origin, not a proxy; it refuses the form (400) and,
    # like every 400, closes.
    smuggle("absolute-form target", request(target=f"http://{HOST}/healthz"), {400})
    smuggle("absolute-form with another authority", request(target="http://evil.example/healthz"), {400})
    smuggle("authority-form CONNECT", request("CONNECT", f"{HOST}:80"), {400, 405})
    smuggle("asterisk-form OPTIONS", request("OPTIONS", "*"), {400})
    smuggle("invalid percent-encoding", request(target="/v1/users/%zz/devices"), {400})

    # --- Methods ---------------------------------------------------------------------------------
    smuggle("unknown method FOO", request("FOO"), {400, 405, 501})
    smuggle("lowercase method get", request("get"), {400, 405, 501})
    smuggle("method 200 bytes", request("G" * 200), {400, 405, 501})
    plain("TRACE is 405", request("TRACE"), {405}, OPEN)

    # --- Size limits (defaults: line 8 KiB, headers 16 KiB / 64, body 64 KiB) --------------------
    smuggle("request line 8193 bytes", request(target="/" + "a" * 8180), {414})
    smuggle("request line 1 MiB without end", b"GET /" + b"a" * (1 << 20), {414})
    plain("request line just under the limit", request(target="/" + "a" * 8100), {404}, OPEN)
    smuggle("one header of 17 KiB", request(headers=["X-Big: " + "b" * 17000]), {431})
    smuggle("header name of 20 KiB", request(headers=["X" * 20000 + ": b"]), {431})
    smuggle("65 headers", request(headers=[f"X-H{i}: v" for i in range(64)]), {431})
    smuggle("10,000 headers", request(headers=[f"X-H{i}: v" for i in range(10000)]), {431})
    smuggle("10,000 empty-valued headers over 200 KiB", request(headers=[f"X-{'p' * 16}{i}:" for i in range(10000)]), {431})
    smuggle("declared body 64 KiB + 1 (not sent)", lambda cn: post(["Content-Length: 65537"], cn), {413})
    smuggle("declared body 64 KiB + 1 (sent)", lambda cn: post(["Content-Length: 65537"], b"x" * 65537 + cn), {413})
    smuggle("declared body 10^17 on GET", lambda cn: request("GET", "/healthz", ["Content-Length: 100000000000000000"], cn), {413})
    smuggle("chunked body over 64 KiB", lambda cn: post([te], chunk(b"x" * 40000) * 2 + b"0\r\n\r\n" + cn), {413})
    smuggle("trailers over 16 KiB", lambda cn: post([te], b"2\r\n{}\r\n0\r\nX-T: " + b"t" * 17000 + b"\r\n\r\n" + cn), {400, 431})

    # --- Pipelining past an error: nothing after it may be answered -------------------------------
    smuggle("valid request pipelined after a 400 (bad Content-Length)",
            lambda cn: post(["Content-Length: x"], b"") + request() + cn, {400})
    smuggle("valid request pipelined after a 431", request(headers=[f"X-H{i}: v" for i in range(70)]) + request(), {431})
    smuggle("valid request pipelined after a 414", request(target="/" + "a" * 9000) + request(), {414})
    smuggle("valid request pipelined after a 413",
            lambda cn: post(["Content-Length: 70000"], b"") + request() + cn, {413})
    smuggle("valid request pipelined after a 501 coding",
            lambda cn: post(["Transfer-Encoding: gzip"], b"") + request() + cn, {400, 501})
    smuggle("valid request pipelined after a bad target 400",
            request(target="/v1/users/%zz/devices") + request(), {400})
    smuggle("valid request sent after a 400, in a second write",
            lambda cn: [post(["Content-Length: x"], b""), request() + cn], {400})
    smuggle("GET with a body: the body is not a request",
            lambda cn: request("GET", "/healthz", [f"Content-Length: {len(cn)}"], cn), {200}, OPEN)
    smuggle("HEAD with a body: the body is not a request",
            lambda cn: request("HEAD", "/healthz", [f"Content-Length: {len(cn)}"], cn), {200}, OPEN)
    smuggle("Expect: 100-continue with CL and TE",
            lambda cn: post(["Expect: 100-continue", "Content-Length: 5", te], b"0\r\n\r\n" + cn), {400})
    smuggle("CL body on a 404 path is drained, not routed",
            lambda cn: request("POST", "/nowhere", [json, f"Content-Length: {len(cn)}"], cn), {404}, OPEN)
    return P


def connection_cap(port, cap):
    """`cap` connections, each answered once, are all the server keeps: the next is closed at
    once, unanswered, and counted; the admitted ones still serve. None, or what went wrong."""
    admitted = []
    try:
        for _ in range(cap):
            sock = socket.create_connection((HOST, port), timeout=DEADLINE)
            admitted.append(sock)
            sock.sendall(request())
            responses, closed, error = read_responses(sock, 1, OPEN, False)
            if [s for s, _ in responses] != [200] or closed:
                return f"connection {len(admitted)} of {cap} not served: {responses} {error or ''}"
        extra = socket.create_connection((HOST, port), timeout=DEADLINE)
        try:
            extra.sendall(request())
        except OSError:
            pass  # already closed: what is wanted
        responses, closed, _ = read_responses(extra, 1, CLOSE, False)
        extra.close()
        if responses or not closed:
            return f"connection {cap + 1} was {'answered' if responses else 'left open'}"
        admitted[0].sendall(request())
        responses, _, error = read_responses(admitted[0], 1, OPEN, False)
        if [s for s, _ in responses] != [200]:
            return f"an admitted connection stopped serving: {responses} {error or ''}"
    except OSError as e:
        return f"socket error: {e}"
    finally:
        for sock in admitted:
            sock.close()
    time.sleep(0.3)  # the server sees the closes a moment later
    metrics = socket.create_connection((HOST, port), timeout=DEADLINE)
    metrics.sendall(request(target="/metrics", headers=["Connection: close"]))
    body = b""
    while chunk_ := metrics.recv(65536):
        body += chunk_
    metrics.close()
    if not re.search(rb"^http_connections_rejected_total [1-9]", body, re.M):
        return "http_connections_rejected_total does not count the refused connection"
    return None


def write_timeout(port, seconds):
    """A client that pipelines requests for large answers and reads none of them is cut off
    after the write timeout: afterwards only what the socket buffers held can be read, then EOF."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    sock.connect((HOST, port))
    count = 400  # of /openapi.yaml, about 65 KB each: 26 MB, far beyond any socket buffer
    try:
        sock.sendall(request(target="/openapi.yaml") * count)
    except OSError as e:
        return f"sending failed: {e}"
    time.sleep(seconds + 2)
    received, closed = 0, False
    sock.settimeout(DEADLINE)
    try:
        while data := sock.recv(1 << 20):
            received += len(data)
        closed = True
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    finally:
        sock.close()
    if not closed:
        return f"still open after {seconds} s of not reading ({received} bytes read afterwards)"
    if received >= count * 60_000:
        return f"every answer arrived ({received} bytes): nothing was cut off"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--log", help="the service's log, checked for canaries")
    parser.add_argument("--only", help="run the probes whose name contains this")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--max-connections", type=int, help="the service's MAX_CONNECTIONS, to probe the cap")
    parser.add_argument("--write-timeout", type=int, help="the service's WRITE_TIMEOUT_SECONDS, to probe it")
    args = parser.parse_args()

    selected = [p for p in probes(args.key) if not args.only or args.only in p.name]
    failed = 0
    smuggled = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda p: run(p, args.port), selected))
    for probe, (failure, canaries) in zip(selected, results):
        smuggled.update(canaries)
        if failure:
            failed += 1
            print(f"FAIL {probe.name}: {failure}")
        elif args.verbose:
            print(f"ok   {probe.name}")

    # One at a time, after the parallel probes: they count and hold connections themselves.
    limits = []
    if args.max_connections and (not args.only or args.only in "connection cap"):
        limits.append(("connection cap", lambda: connection_cap(args.port, args.max_connections)))
    if args.write_timeout and (not args.only or args.only in "write timeout"):
        limits.append(("write timeout", lambda: write_timeout(args.port, args.write_timeout)))
    for name, check in limits:
        failure = check()
        if failure:
            failed += 1
            print(f"FAIL {name}: {failure}")
        elif args.verbose:
            print(f"ok   {name}")

    # The server must still serve after all that.
    alive = run(Probe("still serving", request(), {200}, OPEN), args.port)[0]
    if alive:
        failed += 1
        print(f"FAIL service still serving after the probes: {alive}")

    if args.log:
        time.sleep(0.5)  # let the last access lines reach the file
        with open(args.log, encoding="utf-8", errors="replace") as f:
            routed = [line.strip() for line in f if CANARY in line]
        if routed:
            smuggled.update(re.findall(CANARY + r"-[0-9]+", " ".join(routed)))
            failed += 1
            print(f"FAIL the access log shows {len(routed)} smuggled request(s), e.g. {routed[0][:200]}")

    total = len(selected) + len(limits) + 1 + (1 if args.log else 0)
    print(f"hostile-http: {total} probes, {total - failed} passed, {failed} failed, {len(smuggled)} smuggled")
    sys.exit(1 if failed or smuggled else 0)


if __name__ == "__main__":
    main()
