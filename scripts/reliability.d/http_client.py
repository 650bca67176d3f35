"""A small HTTP/1.1 keep-alive client on asyncio streams, for the reliability scripts.

It exists because the checks need to know exactly how each request ended: a response (with its
status, headers and how long it took), a timeout, or a connection that closed or reset before a
response -- and whether the request went out on a fresh or a reused connection. urllib and
http.client retry or hide some of that.
"""

import asyncio
import json
import time


class NoResponse(Exception):
    """The request got no complete response. `kind` is one of: refused (could not connect),
    reset (connection reset or closed before a full response), timeout. `sent` says whether the
    whole request was written; `reused` whether the connection had carried a request before."""

    def __init__(self, kind, detail="", sent=False, reused=False):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.sent = sent
        self.reused = reused


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-case name -> last value
        self.body = body

    def json(self):
        return json.loads(self.body) if self.body else None


class Connection:
    """One keep-alive connection, reopened on demand. Not for concurrent use."""

    def __init__(self, host, port, timeout):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.reader = None
        self.writer = None
        self.requests = 0

    def close(self):
        if self.writer is not None:
            self.writer.transport.abort()
        self.reader = self.writer = None

    async def request(self, method, path, headers=None, body=None):
        """Sends one request and returns its Response, or raises NoResponse. The whole exchange,
        connecting included, is bounded by the timeout."""
        state = {"sent": False, "reused": self.writer is not None}
        try:
            return await asyncio.wait_for(self._exchange(method, path, headers or {}, body, state), self.timeout)
        except NoResponse:
            self.close()
            raise
        except asyncio.TimeoutError:
            self.close()
            raise NoResponse("timeout", f"no response within {self.timeout}s", state["sent"], state["reused"])
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as error:
            self.close()
            kind = "refused" if not state["sent"] and not state["reused"] and isinstance(
                error, ConnectionRefusedError) else "reset"
            raise NoResponse(kind, repr(error), state["sent"], state["reused"])

    async def _exchange(self, method, path, headers, body, state):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            self.requests = 0
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if data is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (data or b""))
        await self.writer.drain()
        state["sent"] = True
        self.requests += 1

        status_line = await self.reader.readline()
        if not status_line.endswith(b"\n"):
            raise NoResponse("reset", "connection closed before a response", True, state["reused"])
        parts = status_line.decode("latin-1").split(" ", 2)
        status = int(parts[1])
        response_headers = {}
        while True:
            line = await self.reader.readline()
            if not line.endswith(b"\n"):
                raise NoResponse("reset", "connection closed inside the response head", True, state["reused"])
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            response_headers[name.strip().lower()] = value.strip()
        if response_headers.get("transfer-encoding", "").lower() == "chunked":
            payload = await self._chunked()
        else:
            payload = await self.reader.readexactly(int(response_headers.get("content-length", "0")))
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        return Response(status, response_headers, payload)

    async def _chunked(self):
        payload = b""
        while True:
            size = int((await self.reader.readline()).split(b";")[0].strip(), 16)
            if size == 0:
                while (await self.reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                return payload
            payload += await self.reader.readexactly(size)
            await self.reader.readexactly(2)


class Outcome:
    """How one logged operation ended, with its wall-clock (monotonic) start and end."""

    __slots__ = ("op", "token", "user", "start", "end", "status", "error", "retry_after", "sent", "reused", "body")

    def __init__(self, op, token, user, start):
        self.op, self.token, self.user, self.start = op, token, user, start
        self.end = None
        self.status = None
        self.error = None
        self.retry_after = None
        self.sent = False
        self.reused = False
        self.body = None

    @property
    def latency(self):
        return self.end - self.start

    @property
    def verdict(self):
        """acknowledged (2xx), failed (4xx) or unknown (no response, 5xx)."""
        if self.status is not None and 200 <= self.status < 300:
            return "acknowledged"
        if self.status is not None and 400 <= self.status < 500:
            return "failed"
        return "unknown"


async def logged(connection, op, token, user, method, path, headers=None, body=None):
    """Runs one request and returns its Outcome; never raises for what the server did."""
    outcome = Outcome(op, token, user, time.monotonic())
    try:
        response = await connection.request(method, path, headers, body)
        outcome.status = response.status
        outcome.retry_after = response.headers.get("retry-after")
        outcome.body = response.body
        outcome.sent = True
    except NoResponse as failure:
        outcome.error = failure.kind
        outcome.sent = failure.sent
        outcome.reused = failure.reused
    outcome.end = time.monotonic()
    return outcome
