"""Pre-registers what scripts/bench's scenarios read and re-register, through the service's own
batch route: pools "b" (re-registration) and "d" (mix) of 10,000 tokens each, token i owned by
user <pool>-user-(i % 1000) (the rule scenario.lua uses), and user "c-user" with 10 devices.
Usage: preload.py BASE_URL KEY"""
import json
import sys
import urllib.request

POOL, USERS, BATCH = 10_000, 1000, 1000
base, key = sys.argv[1], sys.argv[2]


def device(user, token):
    return {"user_id": user, "provider": "ios", "type": "apns", "token": token}


def post_batch(devices):
    request = urllib.request.Request(
        base + "/v1/devices/batch", data=json.dumps({"devices": devices}).encode(), method="POST",
        headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        body = response.read()
        if response.status != 200:
            sys.exit(f"batch answered {response.status}: {body[:300]!r}")


for pool in ("b", "d"):
    devices = [device(f"{pool}-user-{i % USERS}", pool + format(i, "063x")) for i in range(POOL)]
    for start in range(0, POOL, BATCH):
        post_batch(devices[start:start + BATCH])
post_batch([device("c-user", "c" + format(i, "063x")) for i in range(10)])
