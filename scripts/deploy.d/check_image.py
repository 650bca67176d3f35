"""Checks the facts of the Dockerfile, .dockerignore and docker-compose.yml that a Docker engine
would only reveal at build or run time (none runs in CI). Run by scripts/check-deploy; prints one
line per fact and exits 1 if any fails.

usage: check_image.py SWIFT_VERSION_OUTPUT
"""

import re
import subprocess
import sys

import yaml

# What the service needs from its environment to do its work: DATABASE_URL to start; the master
# key to store and open push credentials (without it nothing can be sent), the admin key to be
# administered at all, DialStack's secret for the webhook to ring (without it: 503).
REQUIRED_SECRETS = ["REGISTRY_MASTER_KEY", "REGISTRY_ADMIN_KEY", "DIALSTACK_WEBHOOK_SECRET"]
REQUIRED = ["DATABASE_URL"] + REQUIRED_SECRETS
# Never in the build context: local clusters and the master key, build output, git history.
NEVER_IN_CONTEXT = [".data", ".git", ".build", ".venv", ".swiftpm"]

failures = []


def check(fact, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + fact + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(fact)


def seconds(value):
    match = re.fullmatch(r"(\d+)s", str(value))
    return int(match.group(1)) if match else None


swift_version = re.search(r"Swift version (\d+\.\d+(?:\.\d+)?)", sys.argv[1])
ci_version = swift_version.group(1) if swift_version else None
dockerfile = open("Dockerfile").read()
lines = [line.strip() for line in dockerfile.splitlines()]

# --- The toolchain CI tests ---------------------------------------------------------------------
arg = re.search(r"^ARG SWIFT_VERSION=(\S+)$", dockerfile, re.M)
check(f"the image builds with Swift {ci_version}, the toolchain CI runs",
      arg is not None and arg.group(1) == ci_version,
      f"ARG SWIFT_VERSION={arg.group(1) if arg else '(none)'}")
froms = re.findall(r"^FROM (\S+)", dockerfile, re.M)
build_image = froms[0] if froms else ""
runtime_image = froms[-1] if froms else ""
build_codename = re.fullmatch(r"swift:\$\{SWIFT_VERSION\}-(\w+)", build_image)
runtime_codename = re.fullmatch(r"debian:(\w+)-slim", runtime_image)
check("the build stage is swift:${SWIFT_VERSION}-<debian release>", build_codename is not None, build_image)
check("the runtime stage is the same Debian release (the libpq and libcrypto the binary linked)",
      bool(build_codename and runtime_codename and build_codename.group(1) == runtime_codename.group(1)),
      f"{build_image} then {runtime_image}")

# --- The versions CI tested ---------------------------------------------------------------------
resolve_at = next((i for i, l in enumerate(lines) if l.startswith("RUN swift package resolve")), None)
copy_resolved_at = next((i for i, l in enumerate(lines)
                         if l.startswith("COPY ") and "Package.resolved" in l.split()), None)
check("Package.resolved is copied before the dependencies are resolved",
      copy_resolved_at is not None and resolve_at is not None and copy_resolved_at < resolve_at)
check("the image resolves and builds only the pinned versions (--force-resolved-versions)",
      resolve_at is not None and "--force-resolved-versions" in lines[resolve_at]
      and all("--force-resolved-versions" in l for l in lines if l.startswith("RUN swift build -c release")))
tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "Package.resolved"],
                         capture_output=True).returncode == 0
check("Package.resolved is committed", tracked)
ignore_rules = [l.strip() for l in open(".gitignore").read().splitlines()]
check("Package.resolved is not in .gitignore", "Package.resolved" not in ignore_rules)

# --- The build context --------------------------------------------------------------------------
dockerignore = [l.strip() for l in open(".dockerignore").read().splitlines()
                if l.strip() and not l.startswith("#")]
allowed = {l[1:].strip("/") for l in dockerignore if l.startswith("!")}
check(".dockerignore leaves everything out but what it names (first rule: *)",
      bool(dockerignore) and dockerignore[0] == "*", dockerignore[:1])
sources = []
for line in lines:
    if line.startswith("COPY ") and "--from=" not in line:
        sources += line.split()[1:-1]
missing = [s for s in sources if s.strip("./") not in allowed]
check("every file the Dockerfile copies is in the build context", not missing, missing)
leaked = [p for p in NEVER_IN_CONTEXT if p in allowed]
check(".data, .git, .build, .venv and .swiftpm stay out of the build context", not leaked, leaked)

# --- docker-compose.yml -------------------------------------------------------------------------
compose = yaml.safe_load(open("docker-compose.yml"))
registry = compose["services"]["registry"]
environment = registry.get("environment", {})
unset = [v for v in REQUIRED if not environment.get(v)]
check("compose sets every variable the service needs: " + ", ".join(REQUIRED), not unset, unset)
for name in REQUIRED_SECRETS:
    value = str(environment.get(name, ""))
    match = re.fullmatch(r"\$\{" + name + r":\?([^}$]+)\}", value)
    check(f"compose requires {name} from the environment and says how to make it when it is missing",
          match is not None and name in match.group(1), value)
grace = int(environment.get("SHUTDOWN_GRACE_SECONDS", 10))
drain = int(environment.get("SHUTDOWN_DRAIN_SECONDS", 0))
stop = seconds(registry.get("stop_grace_period"))
check(f"stop_grace_period is above drain + grace ({drain} + {grace} s)",
      stop is not None and stop > drain + grace, registry.get("stop_grace_period"))
check("compose builds the image from this Dockerfile", registry.get("build") in (".", {"context": "."}))

sys.exit(1 if failures else 0)
