#!/usr/bin/env python3
"""Issue 22's hostile tenant: one app's abusive requests against a relay's API.

Usage: hostile-tenant.py HOST PORT APP_KEY MASTER_SECRET NON_READING

The relay's tests run this as a separate process, the way an attacker is a separate client:
the attack's own client-side work (building requests, reading answers) then does not run
inside the test process beside the worker and simulator whose latency is being measured.

Three loops, each on a keep-alive connection of its own (reopened when the relay closes it):
- "deep JSON": bodies nested 500 deep, alone or inside a push's extras, every 10 ms;
- "control-character collapse id": pushes whose apns_collapse_id holds CR LF, NUL or BEL, every 20 ms;
- "wrong secret": pushes with a guessed secret for an app key that does not exist, every 10 ms.
Plus NON_READING connections that pipeline GET /healthz until the socket takes no more and
never read an answer.

Prints "under way" once every kind of request has been answered; when stdin closes, stops
and prints one JSON line: {kind: {status: count}}, status 0 meaning no answer (a transport error).
"""
import base64
import http.client
import json
import socket
import sys
import threading
import time


def auth(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


class Loop(threading.Thread):
    def __init__(self, host, port, kind, pause, request, tally, lock, stopped):
        super().__init__(daemon=True)
        self.host, self.port, self.kind, self.pause = host, port, kind, pause
        self.request, self.tally, self.lock, self.stopped = request, tally, lock, stopped

    def run(self):
        connection = None
        round_ = 0
        while not self.stopped.is_set():
            body, headers = self.request(round_)
            try:
                connection = connection or http.client.HTTPConnection(self.host, self.port, timeout=30)
                connection.request("POST", "/v3/push", body=body, headers=headers)
                response = connection.getresponse()
                response.read()
                status = response.status
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                status = 0
                if connection:
                    connection.close()
                connection = None
            with self.lock:
                statuses = self.tally.setdefault(self.kind, {})
                statuses[status] = statuses.get(status, 0) + 1
            round_ += 1
            self.stopped.wait(self.pause)
        if connection:
            connection.close()


def pipeline_without_reading(host, port):
    request = b"GET /healthz HTTP/1.1\r\nHost: relay\r\nX-Pad: " + b"p" * 1000 + b"\r\n\r\n"
    connection = socket.create_connection((host, port), timeout=30)
    connection.setblocking(False)
    sent = 0
    while sent < 64 << 20:
        try:
            sent += connection.send(request)
        except (BlockingIOError, OSError):
            break
    return connection


def main():
    host, port, key, secret, non_reading = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    own = {"Authorization": auth(key, secret), "Content-Type": "application/json"}
    guess = {"Authorization": auth("0123456789abcdef01234567", "a-guess"), "Content-Type": "application/json"}
    nested = "[" * 500 + "]" * 500
    deep_extras = ('{"platform":"ios","audience":{"alias":["h_1"]},'
                   '"notification":{"ios":{"alert":"x","extras":{"d":' + nested + '}}}}').encode()
    collapse_ids = ["a\r\nb", "c\u0000d", "e\u0007f"]

    def deep(round_):
        return (deep_extras if round_ % 2 == 0 else nested.encode()), own

    def control(round_):
        body = {"platform": "ios", "audience": {"alias": [f"h_{round_ % 10 + 1}"]}, "notification": {"alert": "x"},
                "options": {"apns_collapse_id": collapse_ids[round_ % 3]}}
        return json.dumps(body).encode(), own

    def wrong(_):
        return json.dumps({"platform": "ios", "audience": "all"}).encode(), guess

    tally, lock, stopped = {}, threading.Lock(), threading.Event()
    loops = [Loop(host, port, "deep JSON", 0.010, deep, tally, lock, stopped),
             Loop(host, port, "control-character collapse id", 0.020, control, tally, lock, stopped),
             Loop(host, port, "wrong secret", 0.010, wrong, tally, lock, stopped)]
    held = [pipeline_without_reading(host, port) for _ in range(non_reading)]
    for loop in loops:
        loop.start()
    while True:
        with lock:
            if len(tally) == len(loops):
                break
        time.sleep(0.01)
    print("under way", flush=True)
    sys.stdin.read()
    stopped.set()
    for loop in loops:
        loop.join()
    for connection in held:
        connection.close()
    print(json.dumps(tally), flush=True)


if __name__ == "__main__":
    main()
