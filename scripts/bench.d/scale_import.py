"""Writes devices FIRST..FIRST+COUNT-1 of the scale bench as NDJSON for POST /v1/devices/import:
users s-0, s-1, … with 2 and 3 APNs tokens in turn (2.5 on average), so a pair of users holds 5
devices. Usage: scale_import.py FIRST COUNT > file"""
import sys

first, count = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
for i in range(first, first + count):
    pair, rest = divmod(i, 5)
    user = 2 * pair + (0 if rest < 2 else 1)
    out.write('{"user_id":"s-%d","provider":"ios","type":"apns","token":"e%063x"}\n' % (user, i))
