#!/usr/bin/env python3
"""Renders the fault suite's results (one JSON line per scenario, written by
Tests/PushPipelineTests/FaultReport.swift) as a Markdown table on stdout."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
# "sharing a collapse id": duplicates whose device got every copy, the first included, with
# one apns-collapse-id, so it showed one notification; equal to "duplicates" when all are.
print("| scenario | pushes sent | delivered | duplicates | duplicates sharing a collapse id | expired | lost | time | notes |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for row in rows:
    print(f"| {row['scenario']} | {row['sent']:,} | {row['delivered']:,} | {row['duplicates']:,} | {row['collapsed']:,} "
          f"| {row['expired']:,} | {row['lost']:,} | {row['seconds']:.1f} s | {row['notes']} |")
lost = sum(row["lost"] for row in rows)
uncollapsed = sum(row["duplicates"] - row["collapsed"] for row in rows)
print(f"\n{len(rows)} scenarios, {lost} lost, {uncollapsed} duplicates without a shared collapse id.")
sys.exit(1 if lost or uncollapsed else 0)
