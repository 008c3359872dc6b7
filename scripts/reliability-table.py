#!/usr/bin/env python3
"""Renders the fault suite's results (one JSON line per scenario, written by
Tests/PushPipelineTests/FaultReport.swift) as a Markdown table on stdout."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| scenario | pushes sent | delivered | duplicates | expired | lost | time | notes |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for row in rows:
    print(f"| {row['scenario']} | {row['sent']:,} | {row['delivered']:,} | {row['duplicates']:,} | {row['expired']:,} "
          f"| {row['lost']:,} | {row['seconds']:.1f} s | {row['notes']} |")
lost = sum(row["lost"] for row in rows)
print(f"\n{len(rows)} scenarios, {lost} lost.")
sys.exit(1 if lost else 0)
