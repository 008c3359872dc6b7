#!/usr/bin/env python3
"""Targeted pushes while a broadcast runs (bench-fanout): a push to the alias bench_user (a
sandbox device: the relay's sandbox endpoint is the targeted pushes' own simulator) every
INTERVAL seconds over a kept-alive connection, until the broadcast is done (its state read
from GET /admin/v1/messages/{msg_id} every 0.2 s: the harness's own polling is load on the
same cores, not part of what is measured) or LIMIT pushes were sent.
Prints each accepted msg_id.

usage: targeted.py BASE AUTH ADMIN_TOKEN BROADCAST_MSG_ID INTERVAL LIMIT
"""
import http.client, json, sys, time, urllib.parse

base, auth, admin, broadcast = sys.argv[1:5]
interval, limit = float(sys.argv[5]), int(sys.argv[6])
url = urllib.parse.urlparse(base)
pushes = http.client.HTTPConnection(url.hostname, url.port)
reports = http.client.HTTPConnection(url.hostname, url.port)
body = json.dumps({"platform": "ios", "audience": {"alias": ["bench_user"]}, "notification": {"alert": "trade filled"},
                   "options": {"apns_production": False}})


def call(connection, method, path, headers, data=None):
    connection.request(method, path, data, headers)
    reply = connection.getresponse()
    payload = reply.read()
    if reply.status != 200:
        sys.exit(f"{method} {path}: {reply.status} {payload!r}")
    return json.loads(payload)


sent = 0
next_at = time.monotonic()
checked_at = 0.0
while sent < limit:
    if time.monotonic() - checked_at >= 0.2:
        checked_at = time.monotonic()
        if call(reports, "GET", f"/admin/v1/messages/{broadcast}", {"Authorization": f"Bearer {admin}"})["state"] == "done":
            break
    reply = call(pushes, "POST", "/v3/push", {"Authorization": auth, "Content-Type": "application/json"}, body)
    print(reply["msg_id"], flush=True)
    sent += 1
    next_at += interval
    time.sleep(max(0.0, next_at - time.monotonic()))
