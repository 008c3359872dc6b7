#!/usr/bin/env python3
"""Opens N idle TCP connections to HOST:PORT and holds them, sending nothing.

Usage: hold-connections.py HOST PORT N

The relay's tests run this as a separate process so that the relay and the clients do not
share one process's open-file limit. Prints "held N" once all are open; then each line
"count" on stdin is answered with "open K", the connections the peer has not closed;
exits when stdin closes.
"""
import resource
import socket
import sys


def still_open(connection):
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def main():
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    held = [socket.create_connection((host, port), timeout=30) for _ in range(count)]
    for connection in held:
        connection.settimeout(None)  # blocking again, so MSG_DONTWAIT reports "nothing yet" as such
    print(f"held {len(held)}", flush=True)
    for line in sys.stdin:
        if line.strip() == "count":
            print(f"open {sum(1 for connection in held if still_open(connection))}", flush=True)
    for connection in held:
        connection.close()


if __name__ == "__main__":
    main()
