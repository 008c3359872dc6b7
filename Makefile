# PushRelay: `make run` starts the relay, `make test` runs every test, `make bench` measures.
# Each installs the Debian packages it needs when missing.

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Build: the C libraries. Run: PostgreSQL, openssl and curl (make run's demo app).
# Tests: tzdata (schedule rules), nghttp2's client and server (outside HTTP/2 peers),
# wrk and pgbench (benchmarks), python3 with the official JPush SDK (interop tests),
# chromium (the dashboard is driven in headless Chromium).
PACKAGES := libevent-dev libpq-dev libnghttp2-dev libssl-dev postgresql openssl curl tzdata \
	nghttp2-client nghttp2-server wrk python3 python3-pip chromium

.PHONY: all deps jpush-sdk schemathesis build release run test bench bench-apns bench-devices clean

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

# Throughput benchmarks; each writes its figures, beside a reference, to docs/benchmarks.md.
bench: bench-apns bench-devices

# The APNs client and h2load against the simulator, h2load against nghttpd (N=200000, RUNS=3).
bench-apns: release
	scripts/bench-apns.sh

# Registrations/s through the API beside pgbench on the same upsert, and the 1M-row import.
bench-devices: release
	scripts/with-test-postgres.sh scripts/bench-devices.sh

clean:
	rm -rf .build
