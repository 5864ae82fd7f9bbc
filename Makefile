# OpenPocket — build, test, demo. A fresh Debian machine with Go needs only
# `make demo` and `make test`; both install the adb server first.

GO      ?= go
BIN     := bin/openpocket
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PKGS    := ./...
# Integration tests start virtual phones on the real adb server; keep
# packages from fighting over it and the two cores.
TESTFLAGS ?= -count=1 -timeout 20m -p 2

.PHONY: all setup build test demo bench lint fmt clean

all: build

## setup: install the adb server (Debian package `adb`) and Chromium (web page tests) when missing
setup:
	@if command -v adb >/dev/null 2>&1; then \
		echo "adb: $$(command -v adb)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing adb (apt-get install -y adb)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb; \
	else \
		echo "adb is not installed and apt-get is unavailable: install Android platform-tools so that 'adb' is on PATH" >&2; \
		exit 1; \
	fi
	@adb start-server >/dev/null 2>&1 || adb start-server
	@if command -v chromium >/dev/null 2>&1; then \
		echo "chromium: $$(command -v chromium)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the web page tests (apt-get install -y chromium)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else \
		echo "chromium is not installed and apt-get is unavailable: install Chromium so that 'chromium' is on PATH" >&2; \
		exit 1; \
	fi

## build: compile bin/openpocket
build:
	$(GO) build -o $(BIN) ./cmd/openpocket

## test: unit, golden and integration tests (real adb server + virtual phone)
test: setup
	$(GO) test $(TESTFLAGS) $(PKGS)

## demo: run the example playbook against the embedded virtual phone
demo: setup build
	./$(BIN) --sim play examples/demo.yaml --output demo-report

## bench: benchmarks with ratios against floors measured in the same run
bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s -count 1 $(PKGS)

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin demo-report
