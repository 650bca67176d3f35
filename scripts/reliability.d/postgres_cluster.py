"""The throwaway PostgreSQL cluster the scripts started (scripts/lib/setup.sh), and the faults
they inflict on it. Server commands run as the `postgres` user when we are root, as the shell
helpers do; psql connects over TCP as `postgres` with trust auth."""

import os
import signal
import subprocess
import time


class PostgresCluster:
    def __init__(self, data_dir, port, bin_dir, database):
        self.data_dir = data_dir
        self.port = port
        self.bin_dir = bin_dir
        self.database = database
        self.frozen = []

    def _as_postgres(self, *command):
        prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        return prefix + list(command)

    def _pg_ctl(self, *arguments, timeout=60):
        command = self._as_postgres(os.path.join(self.bin_dir, "pg_ctl"), "-D", self.data_dir, *arguments)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)

    def stop_immediately(self):
        """Like a crash: no checkpoint, sessions cut; the next start runs crash recovery."""
        self._pg_ctl("-m", "immediate", "-w", "stop")

    def start(self):
        """Returns once the server accepts connections (pg_ctl -w)."""
        self._pg_ctl("-l", os.path.join(self.data_dir, "server.log"), "-w", "-t", "60", "start")

    def postmaster_pid(self):
        with open(os.path.join(self.data_dir, "postmaster.pid")) as file:
            return int(file.readline())

    @staticmethod
    def children(parent):
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry))
        return found

    def freeze(self):
        """SIGSTOP to the postmaster first (so it forks no one new), then to every child."""
        postmaster = self.postmaster_pid()
        os.kill(postmaster, signal.SIGSTOP)
        self.frozen = [postmaster] + self.children(postmaster)
        for pid in self.frozen[1:]:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self):
        for pid in reversed(self.frozen):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.frozen = []

    def psql(self, sql, timeout=30):
        """Runs `sql`; returns the rows as lists of strings (unaligned, tab-separated)."""
        result = subprocess.run(
            ["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", self.database,
             "-v", "ON_ERROR_STOP=1", "-tA", "-F", "\t", "-c", sql],
            check=True, capture_output=True, text=True, timeout=timeout)
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def hold_lock(self, table, seconds):
        """Starts a session that locks `table` against writes for `seconds`; returns its process
        (wait for it). Writers queue behind the lock, so they are mid-transaction meanwhile."""
        return subprocess.Popen(
            ["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", self.database,
             "-v", "ON_ERROR_STOP=1", "-c",
             f"BEGIN; LOCK TABLE {table} IN EXCLUSIVE MODE; SELECT pg_sleep({seconds}); COMMIT;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def terminate_service_sessions(self):
        """Kills every session the service holds; returns how many there were."""
        rows = self.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'device-registry'")
        return int(rows[0][0])

    def wait_accepting(self, limit=30):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                self.psql("SELECT 1", timeout=5)
                return
            except subprocess.SubprocessError:
                time.sleep(0.2)
        raise RuntimeError("PostgreSQL did not come back")
