"""Start-to-ready: time from exec of `device-registry serve` to its first 200 on /readyz, against an
already-migrated database (DATABASE_URL and PORT in the environment), RUNS times; prints each in ms.
Usage: start_to_ready.py BINARY PORT RUNS"""
import http.client
import os
import subprocess
import sys
import time

binary, port, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def ready():
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        connection.request("GET", "/readyz")
        return connection.getresponse().status == 200
    except OSError:
        return False


for _ in range(runs):
    started = time.perf_counter()
    process = subprocess.Popen([binary, "serve"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not ready():
        if process.poll() is not None:
            sys.exit(f"serve exited with {process.returncode} before it was ready")
        if time.perf_counter() - started > 30:
            sys.exit("serve not ready after 30 s")
        time.sleep(0.001)
    print(f"{(time.perf_counter() - started) * 1000:.1f}")
    process.terminate()
    process.wait()
