"""Helpers for `scripts/bench push` (run with the .venv's python, which has aioapns and PyJWT).

  jwt KEY_FILE TEAM_ID KEY_ID                  an ES256 APNs provider token, for h2load's header
  aioapns PORT CA KEY_FILE TEAM KID TOKEN N C  N pushes, C at once, through aioapns; prints pushes/s,
                                               failures and CPU µs per push
  batch USER_PREFIX FIRST COUNT                a POST /v1/devices/batch body: COUNT users × (voip, apns)
  fanout USER_PREFIX COUNT                     a POST /v1/push body for COUNT users
"""
import asyncio
import json
import ssl
import sys
import time

PAYLOAD = {"aps": {}, "call_id": "bench"}


def token_for(user, kind):
    return ("%s%s" % (kind, user.encode().hex())).ljust(64, "0")[:64]


def provider_token(key_file, team, kid):
    import jwt

    with open(key_file) as f:
        return jwt.encode({"iss": team, "iat": int(time.time())}, f.read(), algorithm="ES256", headers={"kid": kid})


async def aioapns_run(port, ca, key_file, team, kid, token, n, concurrency):
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns.connection import APNsProductionClientProtocol, APNsTLSClientProtocol

    # aioapns has no endpoint option: point its production host at the mock, trusting its CA.
    # It names the server with a `host` header instead of `:authority`, as RFC 9113 allows.
    APNsProductionClientProtocol.APNS_SERVER = "localhost"
    APNsTLSClientProtocol.APNS_PORT = port
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2"])
    # One connection: aioapns signs a provider token per connection, and a second one within 20
    # minutes is refused (TooManyProviderTokenUpdates); one connection carries 1,000 streams.
    with open(key_file) as f:
        client = APNs(
            key=f.read(), key_id=kid, team_id=team, topic="com.example.app.voip", use_sandbox=False,
            ssl_context=context, max_connections=1)
    semaphore = asyncio.Semaphore(concurrency)
    failures = 0

    async def one():
        nonlocal failures
        async with semaphore:
            request = NotificationRequest(device_token=token, message=PAYLOAD, push_type=PushType.VOIP, priority=10)
            result = await client.send_notification(request)
            if not result.is_successful:
                failures += 1

    await asyncio.gather(*(one() for _ in range(min(200, n))))  # warm-up: connections and the JWT
    start, cpu = time.monotonic(), time.process_time()
    await asyncio.gather(*(one() for _ in range(n)))
    elapsed, cpu = time.monotonic() - start, time.process_time() - cpu
    print("%.0f %d %.0f" % (n / elapsed, failures, cpu / n * 1e6))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "jwt":
        print(provider_token(*args))
    elif command == "aioapns":
        port, ca, key_file, team, kid, token, n, concurrency = args
        asyncio.run(aioapns_run(int(port), ca, key_file, team, kid, token, int(n), int(concurrency)))
    elif command == "batch":
        prefix, first, count = args[0], int(args[1]), int(args[2])
        devices = []
        for i in range(first, first + count):
            user = "%s-%d" % (prefix, i)
            devices.append({"user_id": user, "provider": "ios", "type": "voip", "token": token_for(user, "a")})
            devices.append({"user_id": user, "provider": "ios", "type": "apns", "token": token_for(user, "b")})
        print(json.dumps({"devices": devices}))
    elif command == "fanout":
        prefix, count = args[0], int(args[1])
        print(json.dumps({
            "user_ids": ["%s-%d" % (prefix, i) for i in range(count)],
            "apns": {"push_type": "voip", "priority": 10, "payload": PAYLOAD}, "deadline": "30s",
        }))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
