"""Helpers for `scripts/bench ring`: DialStack webhooks signed as DialStack signs them.

  signed SECRET USER COUNT PREFIX      COUNT webhooks "<signature>\\t<body>", ids PREFIX-0…, for wrk
  paced BASE SECRET USER RATE SECONDS  webhooks at RATE/s for SECONDS (open loop, 64 connections);
                                       prints p50/p99 from each one's scheduled start to its answer
"""
import hashlib
import hmac
import http.client
import json
import queue
import sys
import threading
import time
import urllib.parse


def webhook(secret, user, event_id):
    body = json.dumps({
        "id": event_id, "type": "call.mobile_push_wakeup",
        "data": {"call_id": "call-" + event_id, "user_id": user, "from_number": "+14155551234",
                 "from_name": "Bench Caller", "to_number": "+14155559876"},
    }, separators=(",", ":"))
    t = str(int(time.time()))
    mac = hmac.new(secret.encode(), (t + "." + body).encode(), hashlib.sha256).hexdigest()
    return "t=%s,v1=%s" % (t, mac), body


def signed(secret, user, count, prefix):
    for n in range(count):
        signature, body = webhook(secret, user, "%s-%d" % (prefix, n))
        sys.stdout.write(signature + "\t" + body + "\n")


def paced(base, secret, user, rate, seconds):
    """Open loop: webhook n is due at start + n / rate whatever the answers do, and its latency
    counts from then, so a slow answer delays (and is charged to) the ones queued behind it."""
    url = urllib.parse.urlsplit(base)
    total = int(rate * seconds)
    due = queue.Queue()
    latencies, failures, lock = [], [], threading.Lock()
    prefix = "paced-%d" % time.time_ns()
    requests = [webhook(secret, user, "%s-%d" % (prefix, n)) for n in range(total)]

    def worker():
        connection = http.client.HTTPConnection(url.hostname, url.port)
        while True:
            item = due.get()
            if item is None:
                return
            scheduled, (signature, body) = item
            connection.request("POST", "/v1/webhooks/dialstack", body=body, headers={
                "Content-Type": "application/json", "X-DialStack-Signature": signature})
            response = connection.getresponse()
            answer = response.read()
            elapsed = time.monotonic() - scheduled
            with lock:
                if response.status == 200 and b'"state":"done"' in answer and b'"status":"sent"' in answer:
                    latencies.append(elapsed)
                else:
                    failures.append(response.status)

    workers = [threading.Thread(target=worker) for _ in range(64)]
    for thread in workers:
        thread.start()
    start = time.monotonic() + 0.1
    for n, request in enumerate(requests):
        scheduled = start + n / rate
        pause = scheduled - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        due.put((scheduled, request))
    for _ in workers:
        due.put(None)
    for thread in workers:
        thread.join()
    latencies.sort()

    def percentile(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] * 1000 if latencies else 0

    print("%d %d %.1f %.1f" % (len(latencies), len(failures), percentile(50), percentile(99)))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "signed":
        signed(args[0], args[1], int(args[2]), args[3])
    elif command == "paced":
        paced(args[0], args[1], args[2], float(args[3]), float(args[4]))
    else:
        sys.exit(__doc__)
