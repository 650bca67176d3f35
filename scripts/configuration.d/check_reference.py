"""Checks that docs/configuration.md names every option and environment variable device-registry
reads, so the reference cannot fall behind the code. Run by scripts/check-configuration.

usage: check_reference.py DUMP_HELP_JSON…

Options come from the binaries themselves (`device-registry --experimental-dump-help` and
`mock-push --experimental-dump-help`: every command, subcommand and option ArgumentParser knows);
each command needs a heading naming it and each option must appear as `--name`. Environment
variables come from Sources/DeviceRegistry and Sources/MockPushCommand: the names
read with ProcessInfo's environment, passed to Setting (`env: "NAME"`), or named in a help text
(`(env: NAME …)`), and any NAME_FILE spelled out there.
"""

import json
import pathlib
import re
import sys

reference = pathlib.Path("docs/configuration.md").read_text()
headings = [line for line in reference.splitlines() if line.startswith("#")]
missing = []


def subcommands(command):
    return [sub for sub in command.get("subcommands") or [] if sub["commandName"] != "help"]  # ArgumentParser's own


def walk(command, path):
    if path and not subcommands(command):
        # A leaf command: its heading names the command (`keys create` lives under `keys`), and
        # every long option appears as `--name`.
        if not any(path[0] in heading for heading in headings):
            missing.append(f"a heading for `{' '.join(path)}`")
        for argument in command.get("arguments") or []:
            longs = [n["name"] for n in argument.get("names", []) if n["kind"] == "long"]
            if longs and longs[0] not in ("help", "version") and f"`--{longs[0]}`" not in reference \
                    and f"--{longs[0]}`" not in reference and f"--{longs[0]}," not in reference:
                missing.append(f"{' '.join(path)} --{longs[0]}")
    for sub in subcommands(command):
        walk(sub, path + [sub["commandName"]])


for dump in sys.argv[1:]:
    root = json.loads(pathlib.Path(dump).read_text())["command"]
    # A binary with subcommands is named by them; one without (mock-push) by itself.
    walk(root, [] if subcommands(root) else [root["commandName"]])

name = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|HOST|PORT"
environment = set()
sources = [*pathlib.Path("Sources/DeviceRegistry").rglob("*.swift"), *pathlib.Path("Sources/MockPushCommand").rglob("*.swift")]
for source in sorted(sources):
    text = source.read_text()
    environment.update(re.findall(r'environment\["(' + name + r')"\]', text))
    environment.update(re.findall(r'env(?:ironment)?:\s*"(' + name + r')"', text))
    for help_text in re.findall(r"\(env: ([^)]*)\)", text):
        environment.update(re.findall(r"\b(" + name + r")\b", help_text))
    environment.update(re.findall(r'"(' + name + r'_FILE)"', text))
for variable in sorted(environment):
    if f"`{variable}`" not in reference:
        missing.append(f"environment variable {variable}")

if missing:
    print("check-configuration: docs/configuration.md does not name:", file=sys.stderr)
    for item in missing:
        print(f"  {item}", file=sys.stderr)
    sys.exit(1)
print(f"{len(environment)} environment variables and every option of every command are in docs/configuration.md")
