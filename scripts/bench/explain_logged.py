"""EXPLAIN (ANALYZE, BUFFERS) of every statement PostgreSQL logged with its parameters.

Usage: explain_logged.py SERVER_LOG > explain.sql
SERVER_LOG holds the cluster's log while `log_statement = all` was on (one push through the
relay: `execute <name>: <text>` and `DETAIL: parameters: …`). Each statement becomes, once
per name, `BEGIN; EXPLAIN (ANALYZE, BUFFERS) <text with its parameters>; ROLLBACK;` with a
`\\echo` of its name, for psql: the plan and the time of exactly what the relay ran, undone,
in a session that ran it once before (warm catalog caches, as the relay's pool sessions are).
"""
import re
import sys

lines = open(sys.argv[1], errors="replace").read().split("\n")
prefix = re.compile(r"^\d{4}-\d\d-\d\d ")
seen = set()
# A statement that fails (a plan that cannot be repeated) is reported, and the next goes on.
print("\\set ON_ERROR_STOP 0")
for index, line in enumerate(lines):
    match = re.search(r"execute (pushrelay_\w+): (.*)$", line)
    if not match or match.group(1) in seen:
        continue
    body, parameters = [match.group(2)], ""
    for following in lines[index + 1:]:
        if prefix.match(following):
            detail = re.search(r"DETAIL:  parameters: (.*)$", following)
            parameters = detail.group(1) if detail else ""
            break
        body.append(following)
    values = dict((int(n), v) for n, v in re.findall(r"\$(\d+) = (NULL|'(?:[^']|'')*')", parameters))
    if match.group(1).startswith("pushrelay_accept_"):
        values[1] = "(SELECT max(id) + 1 FROM messages)"  # the logged msg_id is taken
    text = "\n".join(body)
    if any(int(n) not in values for n in re.findall(r"\$(\d+)", text)):
        continue
    seen.add(match.group(1))
    statement = re.sub(r"\$(\d+)", lambda m: values[int(m.group(1))], text)
    # Comments would swallow the rest of the line once joined.
    statement = " ".join(re.sub(r"--[^\n]*", "", statement).split())
    # Once unseen (the session's first use of a table reads its catalog entries), then for
    # the figures.
    print("\\o /dev/null")
    print(f"BEGIN; EXPLAIN (ANALYZE) {statement}; ROLLBACK;")
    print("\\o")
    print(f"\\echo '### {match.group(1)}'")
    print("BEGIN;")
    print(f"EXPLAIN (ANALYZE, BUFFERS) {statement};")
    print("ROLLBACK;")
