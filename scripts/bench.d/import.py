"""Writes N NDJSON registrations for POST /v1/devices/import: new tokens (prefix "e"), four
devices per user. Usage: import.py N > file"""
import sys

n = int(sys.argv[1])
out = sys.stdout
for i in range(n):
    out.write('{"user_id":"imp-%d","provider":"ios","type":"apns","token":"e%063x"}\n' % (i // 4, i))
