#!/usr/bin/env python3
"""The apps and the load of `make bench-tenants` (scripts/bench-tenants.sh).

  tenants.py keys DIR KEYS
      KEYS P-256 token keys: DIR/K<9 digits>.p8 (key id = the file's name, 10 characters).
  tenants.py create BASE ADMIN DIR APPS APPS_PER_KEY > apps.txt
      APPS apps through the admin API, each with a token credential (APPS_PER_KEY apps of one
      team share a key, as one company's apps do; topic com.example.tenant<N>), four
      connections at once. Prints "app_key master_secret" per app, in order.
  tenants.py targeted BASE ADMIN APPS_FILE FIRST COUNT INTERVAL BROADCAST_IDS
      Apps FIRST..FIRST+COUNT-1 of APPS_FILE push to their alias "user" all at once (16
      connections), a round every INTERVAL s, until every broadcast (comma-separated msg_ids)
      is done (one round when there is none). Prints each accepted msg_id.
"""
import base64, concurrent.futures, http.client, json, os, sys, threading, time, urllib.parse


def connection(base):
    url = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=120)


def call(conn, method, path, headers, body=None, ok=(200, 201)):
    conn.request(method, path, body, headers)
    reply = conn.getresponse()
    data = reply.read()
    if reply.status not in ok:
        sys.exit(f"{method} {path}: {reply.status} {data[:300]!r}")
    return json.loads(data) if data else {}


def keys(directory, count):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    os.makedirs(directory, exist_ok=True)
    for index in range(count):
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        with open(os.path.join(directory, f"K{index:09d}.p8"), "wb") as out:
            out.write(pem)


def create(base, admin, directory, apps, per_key):
    lock = threading.Lock()
    local = threading.local()
    results = [None] * apps
    pems = {}

    def pem(key_index):
        with lock:
            if key_index not in pems:
                pems[key_index] = open(os.path.join(directory, f"K{key_index:09d}.p8")).read()
            return pems[key_index]

    def one(index):
        if not hasattr(local, "conn"):
            local.conn = connection(base)
        headers = {"Authorization": f"Bearer {admin}", "Content-Type": "application/json"}
        app = call(local.conn, "POST", "/admin/v1/apps", headers, json.dumps({"name": f"tenant {index}"}))
        key_index = index // per_key
        credential = {"auth": "token", "key_id": f"K{key_index:09d}", "team_id": f"T{key_index:09d}",
                      "topic": f"com.example.tenant{index}", "private_key": pem(key_index)}
        call(local.conn, "PUT", f"/admin/v1/apps/{app['app_key']}/apns", headers, json.dumps(credential))
        results[index] = f"{app['app_key']} {app['master_secret']}"

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(apps)))
    print("\n".join(results))


def targeted(base, admin, apps_file, first, count, interval, broadcasts):
    apps = [line.split() for line in open(apps_file).read().splitlines()][first:first + count]
    auths = ["Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode() for key, secret in apps]
    body = json.dumps({"platform": "ios", "audience": {"alias": ["user"]}, "notification": {"alert": "your trade was filled"}})
    local = threading.local()
    printed = threading.Lock()

    def push(auth):
        if not hasattr(local, "conn"):
            local.conn = connection(base)
        reply = call(local.conn, "POST", "/v3/push", {"Authorization": auth, "Content-Type": "application/json"}, body)
        with printed:
            print(reply["msg_id"], flush=True)

    reports = connection(base)

    def broadcasts_done():
        return all(call(reports, "GET", f"/admin/v1/messages/{msg}", {"Authorization": f"Bearer {admin}"})["state"] == "done"
                   for msg in broadcasts)

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        next_round = time.monotonic()
        while True:
            list(pool.map(push, auths))
            if broadcasts_done():
                break
            next_round += interval
            time.sleep(max(0.0, next_round - time.monotonic()))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "keys":
        keys(args[0], int(args[1]))
    elif command == "create":
        create(args[0], args[1], args[2], int(args[3]), int(args[4]))
    elif command == "targeted":
        targeted(args[0], args[1], args[2], int(args[3]), int(args[4]), float(args[5]), [msg for msg in args[6].split(",") if msg])
    else:
        sys.exit(__doc__)
