# PushRelay: `make run` starts the relay, `make test` runs every test.
# Both install the Debian packages they need when missing.

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
PACKAGES := libevent-dev libpq-dev libnghttp2-dev libssl-dev postgresql openssl curl tzdata nghttp2-client nghttp2-server
# Tests only: the dashboard's pages are driven in headless Chromium.
TEST_PACKAGES := chromium

.PHONY: all deps build release run test clean

all: build

deps:
	@scripts/install-deps.sh $(PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The relay with its embedded defaults (a private PostgreSQL cluster under ./.pushrelay)
# beside the APNs simulator, with a demo app whose credentials the simulator trusts.
run: release
	scripts/run.sh

# Every test, against a throwaway PostgreSQL cluster.
test: deps
	@scripts/install-deps.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests
	scripts/with-test-postgres.sh $(SWIFT) test --skip-build --no-parallel

clean:
	rm -rf .build

# Device registry: the official JPush Python SDK drives its integration test; wrk and
# pgbench (from postgresql) run its benchmark.
PACKAGES += wrk curl
.PHONY: jpush-sdk bench bench-devices
test: jpush-sdk
jpush-sdk:
	@scripts/install-deps.sh python3 python3-pip
	@python3 -c 'import jpush' 2>/dev/null || python3 -m pip install --quiet jpush 2>/dev/null \
	  || python3 -m pip install --quiet --break-system-packages jpush

bench: bench-devices
# Registrations/s through the API beside pgbench on the same upsert, and the 1M-row import.
bench-devices: release
	scripts/with-test-postgres.sh scripts/bench-devices.sh
