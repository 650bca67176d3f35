"""Runs `device-registry serve` and starts it again whenever it exits (what systemd or a container
runtime would do), on the same port, for a bounded number of restarts."""

import os
import signal
import subprocess
import threading
import time


class ServiceSupervisor:
    def __init__(self, binary, port, environment, log_path, max_starts=100):
        self.binary = binary
        self.port = port
        self.environment = environment
        self.log_path = log_path
        self.max_starts = max_starts
        self.process = None
        self.starts = 0
        self.exits = []  # (monotonic time, return code)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="supervisor", daemon=True)

    def start(self):
        self._thread.start()

    @property
    def pid(self):
        with self._lock:
            return self.process.pid if self.process else None

    def kill(self, signal_number=signal.SIGKILL):
        """Signals the current process; returns its pid (None if none runs)."""
        with self._lock:
            if self.process is None or self.process.poll() is not None:
                return None
            self.process.send_signal(signal_number)
            return self.process.pid

    def stop(self, timeout=15):
        """No more restarts; SIGTERM, then SIGKILL after `timeout`."""
        self._stopping.set()
        with self._lock:
            process = self.process
        if process and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._thread.join(timeout)

    def _loop(self):
        with open(self.log_path, "ab") as log:
            while not self._stopping.is_set() and self.starts < self.max_starts:
                with self._lock:
                    if self._stopping.is_set():
                        return
                    self.process = subprocess.Popen(
                        [self.binary, "serve", "--port", str(self.port)],
                        env={**os.environ, **self.environment}, stdout=log, stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL)
                    self.starts += 1
                code = self.process.wait()
                self.exits.append((time.monotonic(), code))
                if not self._stopping.is_set():
                    time.sleep(0.05)
