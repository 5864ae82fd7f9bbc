# OpenPocket — build, test, demo. A fresh Debian machine with Go needs only
# `make demo` and `make test`; both install the adb server first.

GO      ?= go
BIN     := bin/openpocket
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PKGS    := ./...
# Integration tests start virtual phones on the real adb server; keep
# packages from fighting over it and the two cores.
TESTFLAGS ?= -count=1 -timeout 20m -p 2

# Fuzz targets run a bounded number of inputs in `make test` (each
# FUZZTIME). A count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can fail a target that found nothing ("context deadline
# exceeded" at the deadline, go.dev/issue/75804, fixed in Go 1.27) when the
# machine is loaded. FUZZMINIMIZE bounds the minimizing of a new input.
FUZZTIME ?= 10000x
FUZZMINIMIZE ?= 5s
FUZZ    := ./playbooks:FuzzCompile ./internal/workspace:FuzzParseConfig ./internal/executor/policy:FuzzCheck \
           ./engine/screen/imagecodec:FuzzDecodePNGRows ./engine/screen/imagecodec:FuzzEncodeJPEG ./engine/screen/imagecodec:FuzzEncodePNG

# soak: RUNS runs of the tests while a churn process attaches, uses and
# detaches phones on the shared adb server (SOAKTIME at most).
RUNS     ?= 10
SOAKTIME ?= 60m

# The MCP end-to-end test drives `openpocket mcp` with a client nobody here
# wrote: the MCP Inspector's CLI from the npm registry, pinned, installed
# once under .cache/npm (the test runs it from there, offline).
INSPECTOR_VERSION := 0.17.2
INSPECTOR         := .cache/npm/node_modules/.bin/mcp-inspector

.PHONY: all setup test-tools build test fuzz soak demo bench lint fmt clean

all: build

## setup: install the adb server (Debian package `adb`) and bubblewrap (Debian
## package `bubblewrap`, which confines scripts and exec) when missing, zsh and
## fish for the completion tests, Chromium (Debian package `chromium`) for
## the web page tests and Redis (Debian package `redis-server`) for the fleet tests
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
	@if command -v bwrap >/dev/null 2>&1; then \
		echo "bwrap: $$(command -v bwrap)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing bubblewrap (apt-get install -y bubblewrap)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; \
	else \
		echo "bubblewrap is not installed and apt-get is unavailable: scripts and exec will be refused unless config.json sets scriptExecutor.sandbox to \"off\"" >&2; \
	fi
	@# zsh and fish: the completion tests source the generated scripts in them.
	@if command -v zsh >/dev/null 2>&1 && command -v fish >/dev/null 2>&1; then \
		echo "zsh, fish: $$(command -v zsh) $$(command -v fish)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing zsh and fish (apt-get install -y zsh fish)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish; \
	else \
		echo "zsh and fish are not installed and apt-get is unavailable: install them for the completion tests" >&2; \
		exit 1; \
	fi
	@# redis-server: the fleet tests start their own on a free loopback port.
	@if command -v redis-server >/dev/null 2>&1; then \
		echo "redis-server: $$(command -v redis-server)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing redis-server for the fleet tests (apt-get install -y redis-server)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; \
	else \
		echo "redis-server is not installed and apt-get is unavailable: install Redis so that 'redis-server' is on PATH" >&2; \
		exit 1; \
	fi
	@if command -v chromium >/dev/null 2>&1; then \
		echo "chromium: $$(command -v chromium)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the web page tests (apt-get install -y chromium)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else \
		echo "chromium is not installed and apt-get is unavailable: install Chromium so that 'chromium' is on PATH" >&2; \
		exit 1; \
	fi

## build: compile bin/openpocket, stripped (-s -w: no symbol table or DWARF; -trimpath: no build paths)
build:
	$(GO) build -trimpath -ldflags "-s -w" -o $(BIN) ./cmd/openpocket

## test: unit, golden and integration tests (real adb server + virtual phone), then the bounded fuzz runs
test: setup test-tools
	$(GO) test $(TESTFLAGS) $(PKGS)
	@$(MAKE) --no-print-directory fuzz

## fuzz: run each fuzz target for FUZZTIME (the playbook compiler, the config loader, the shell checker, the image codecs against the standard library's)
fuzz:
	@for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || exit 1; \
	done

## soak: run the tests RUNS times while another process churns phones on the adb server; fails on any failed run or lost phone
soak: setup
	@$(GO) test -c -o bin/adb-churn.test ./internal/adb
	@OPENPOCKET_TEST_STRESS_WORKER=$(SOAKTIME) OPENPOCKET_TEST_STRESS_SERVER=127.0.0.1:5037 \
		OPENPOCKET_STRESS_PAUSE=300ms OPENPOCKET_STRESS_VANISH_EVERY=1000000000 \
		bin/adb-churn.test -test.run='^$$' > bin/churn.json 2> bin/churn.log & churn=$$!; \
	status=0; \
	for i in $$(seq $(RUNS)); do \
		echo "soak run $$i/$(RUNS)"; \
		$(GO) test $(TESTFLAGS) $(PKGS) > bin/soak-$$i.log 2>&1 || { echo "run $$i failed: bin/soak-$$i.log"; status=1; }; \
	done; \
	kill -TERM $$churn 2>/dev/null; wait $$churn 2>/dev/null; \
	echo "churn: $$(cat bin/churn.json 2>/dev/null)"; \
	if grep -q '"losses"\|"err"' bin/churn.json 2>/dev/null; then echo "the churn process lost phones"; status=1; fi; \
	exit $$status

## test-tools: install what tests run besides Go: the MCP Inspector CLI
## (npm registry, pinned INSPECTOR_VERSION) under .cache/npm, with Node.js
## (Debian packages `nodejs` and `npm`) when missing
test-tools: $(INSPECTOR)

$(INSPECTOR):
	@if command -v npm >/dev/null 2>&1; then \
		echo "npm: $$(command -v npm)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "installing Node.js (apt-get install -y nodejs npm)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm; \
	else \
		echo "npm is not installed and apt-get is unavailable: install Node.js for the MCP end-to-end test" >&2; \
		exit 1; \
	fi
	npm install --no-audit --no-fund --prefix .cache/npm @modelcontextprotocol/inspector@$(INSPECTOR_VERSION)
	@test -x $(INSPECTOR)

## demo: run the example playbook against the embedded virtual phone
demo: setup build
	./$(BIN) --sim play examples/demo.yaml --output demo-report --report-html demo-report/html

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
