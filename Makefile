# PushRelay: `make run` starts the relay, `make test` runs every test, `make bench` measures,
# `make reliability` runs the fault suite at full size, `make fuzz` the parsers' property tests at length.
# Each installs the Debian packages it needs when missing.

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Build: the C libraries. Run: PostgreSQL, openssl and curl (make run's demo app).
# Tests: tzdata (schedule rules), nghttp2's client and server (outside HTTP/2 peers),
# wrk and pgbench (benchmarks), python3 with the official JPush SDK (interop tests),
# chromium (the dashboard is driven in headless Chromium), pgbouncer (PgBouncerTests).
PACKAGES := libevent-dev libpq-dev libnghttp2-dev libssl-dev postgresql openssl curl tzdata \
	nghttp2-client nghttp2-server wrk python3 python3-pip chromium pgbouncer

.PHONY: all deps jpush-sdk schemathesis build release run test reliability fuzz bench bench-apns bench-devices bench-fanout bench-tenants clean

all: build

deps:
	@scripts/install-deps.sh $(PACKAGES)

# The official JPush Python SDK, which the interop tests drive against the relay.
jpush-sdk: deps
	@python3 -c 'import jpush' 2>/dev/null || python3 -m pip install --quiet jpush 2>/dev/null \
	  || python3 -m pip install --quiet --break-system-packages jpush

# schemathesis (`st`), which the spec-conformance test runs against openapi.yaml and a live relay.
schemathesis: deps
	@command -v st >/dev/null 2>&1 || python3 -m pip install --quiet schemathesis 2>/dev/null \
	  || python3 -m pip install --quiet --break-system-packages schemathesis

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The relay with its embedded defaults (a private PostgreSQL cluster under ./.pushrelay)
# beside the APNs simulator, with a demo app whose credentials the simulator trusts.
run: release
	scripts/run.sh

# Every test, against a throwaway PostgreSQL cluster.
test: deps jpush-sdk schemathesis
	$(SWIFT) build --build-tests
	scripts/with-test-postgres.sh $(SWIFT) test --skip-build --no-parallel

# The fault suite (FaultTests, AndroidFaultTests), the lane and multi-node tests at the issue's sizes — SIGKILLs, a PostgreSQL outage, a
# misbehaving APNs or FCM, two nodes, a full or read-only disk — then its table (scenario, pushes
# sent, delivered, duplicates, duplicates sharing a collapse id, lost, time). `make test` runs the same suite at reduced size.
# The parsers' fuzz suites run here too, at RELIABILITY_FUZZ_ITERATIONS inputs.
RELIABILITY_RESULTS := .build/reliability/results.jsonl
reliability: deps
	$(SWIFT) build --build-tests
	@mkdir -p $(dir $(RELIABILITY_RESULTS)) && rm -f $(RELIABILITY_RESULTS)
	@# The table is printed even when a scenario failed; the exit status is the suite's.
	status=0; PUSHRELAY_RELIABILITY_FULL=1 PUSHRELAY_PIPELINE_FULL=1 PUSHRELAY_RELIABILITY_RESULTS=$(CURDIR)/$(RELIABILITY_RESULTS) \
	  PUSHRELAY_FUZZ_ITERATIONS=$(RELIABILITY_FUZZ_ITERATIONS) PUSHRELAY_FUZZ_SEED=$(FUZZ_SEED) \
	  scripts/with-test-postgres.sh $(SWIFT) test --skip-build --no-parallel --filter 'FaultTests|ReliabilityTests|MultiNodeTests|IdleConnectionTests|HostileClientTests|HostileTenantTests|$(FUZZ_SUITES)' || status=$$?; \
	  scripts/reliability-table.py $(RELIABILITY_RESULTS) && exit $$status

# The seeded property tests ("fuzz" suites) of the JSON body parser and the request-target
# parser at length: FUZZ_ITERATIONS inputs from a new FUZZ_SEED each run (a failure names the
# input to replay with PUSHRELAY_FUZZ_INPUT). `make test` runs them at their small default size.
FUZZ_SUITES := JSONParserFuzzTests|RequestTargetFuzzTests
FUZZ_ITERATIONS ?= 300000
RELIABILITY_FUZZ_ITERATIONS ?= 30000
FUZZ_SEED ?= $(shell date +%s)
fuzz: deps
	$(SWIFT) build --build-tests
	PUSHRELAY_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) PUSHRELAY_FUZZ_SEED=$(FUZZ_SEED) \
	  $(SWIFT) test --skip-build --no-parallel --filter '$(FUZZ_SUITES)'

# Throughput benchmarks; each writes its figures, beside a reference, to docs/benchmarks.md.
bench: bench-apns bench-devices bench-fanout

# The APNs client and h2load against the simulator, h2load against nghttpd (N=200000, RUNS=3).
bench-apns: release
	scripts/bench-apns.sh

# Registrations/s through the API beside pgbench on the same upsert, and the 1M-row import.
bench-devices: release
	scripts/with-test-postgres.sh scripts/bench-devices.sh

# Broadcasts of 100,000 and 1,000,000 devices through the relay beside h2load to the same
# simulator, iOS (apns-sim) and Android (fcm-sim); targeted latency idle and during them;
# pushes accepted/s; peak RSS (SIZES=…, ROUNDS=…, LATENCIES=…, ANDROID=0).
bench-fanout: release
	scripts/with-test-postgres.sh scripts/bench-fanout.sh

# 10,000 apps on one relay, 1,000 pushing at once beside broadcasts: threads, RSS, APNs
# connections during and after, targeted p50/p99 (APPS=…, PUSHING=…, BROADCAST_DEVICES=…).
bench-tenants: release
	scripts/with-test-postgres.sh scripts/bench-tenants.sh

clean:
	rm -rf .build
