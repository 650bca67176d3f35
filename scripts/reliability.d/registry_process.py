"""The device-registry binary as the reliability scripts drive it: one-shot commands, readiness."""

import asyncio
import os
import subprocess
import time

from http_client import Connection, NoResponse


def add_service_arguments(parser):
    """What the bash wrappers pass about the binary, its port and the throwaway cluster."""
    parser.add_argument("--binary", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pg-data", required=True)
    parser.add_argument("--pg-port", type=int, required=True)
    parser.add_argument("--pg-bin", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--work-dir", required=True, help="logs go here")


async def wait_ready(port, process=None, limit=60):
    """Waits until /readyz answers 200; gives up early if `process` (a Popen) has exited."""
    connection = Connection("127.0.0.1", port, 2)
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline and (process is None or process.poll() is None):
            try:
                if (await connection.request("GET", "/readyz")).status == 200:
                    return
            except NoResponse:
                pass
            await asyncio.sleep(0.1)
    finally:
        connection.close()
    raise RuntimeError("the service did not become ready")


def cli(binary, environment, *arguments):
    """Runs `device-registry arguments…` and returns its stdout; raises with its stderr on failure."""
    result = subprocess.run([binary, *arguments], env={**os.environ, **environment}, capture_output=True,
                            text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"device-registry {' '.join(arguments)} failed: {result.stderr.strip()}")
    return result.stdout.strip()
