"""pgbench script of the relay's own accepting statement, as PostgreSQL logged it.

Usage: accept_pgbench.py SERVER_LOG > accept.pgbench
SERVER_LOG holds the cluster's log while `log_statement = all` was on and the relay accepted
one targeted push to an alias (`execute pushrelay_accept_…: <text>` and its `DETAIL:
parameters: $1 = '…', …`). The script runs that text with those parameters, except a random
msg_id ($1) and a random one of the aliases u0…u999 (the alias list), so each transaction
stores a new push as the relay does.
"""
import re
import sys

lines = open(sys.argv[1], errors="replace").read().split("\n")
prefix = re.compile(r"^\d{4}-\d\d-\d\d ")
text = parameters = None
for index, line in enumerate(lines):
    match = re.search(r"execute (pushrelay_accept_targeted\w*): (.*)$", line)
    if not match:
        continue
    body = [match.group(2)]
    for following in lines[index + 1:]:
        if prefix.match(following):
            detail = re.search(r"DETAIL:  parameters: (.*)$", following)
            parameters = detail.group(1) if detail else None
            break
        body.append(following)
    text = "\n".join(body)
if text is None or parameters is None:
    sys.exit("no accepting statement with parameters in " + sys.argv[1])

values = {}
for number, value in re.findall(r"\$(\d+) = (NULL|'(?:[^']|'')*')", parameters):
    values[int(number)] = value
values[1] = ":id"
for number, value in values.items():
    if re.fullmatch(r"'\{[^,]*\}'", value):  # the alias list: a random user's
        values[number] = "('{u' || :alias || '}')"
statement = re.sub(r"\$(\d+)", lambda m: values[int(m.group(1))], text)
print("\\set id random(1, 9000000000000000000)")
print("\\set alias random(0, 999)")
print(" ".join(statement.split()) + ";")
