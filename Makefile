# cadre — build, test and measure. Every target brings what it needs itself.

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
PKGS        := ./...

.PHONY: test vet lint fmt fmt-check bench cover fuzz quickstart interop-deps browser-deps reliability mutation soak

## test: everything CI checks — formatting, vet, staticcheck, the race-enabled test suite (with
## the MCP interop tests, which need Node.js: see interop-deps; the browser tests, which need
## Chromium: see browser-deps; the Redis chat store's, which run against a redis-server that
## scripts/with-redis starts and stops; and the Postgres chat store's, against a PostgreSQL
## server that scripts/with-postgres starts and stops), and a few seconds of each fuzz target (a
## crash found there is saved under testdata/fuzz).
test: interop-deps browser-deps fmt-check vet lint
	scripts/with-redis scripts/with-postgres $(GO) test -race -count=1 $(PKGS)
	$(MAKE) fuzz FUZZTIME=5s

## reliability: the long checks of the promises (the property tests with 10,000 scenarios
## each), ending with a line "reliability: N passed, M failed".
reliability:
	GO=$(GO) scripts/with-redis scripts/with-postgres scripts/reliability

## mutation: mutation testing (gremlins) of the packages that hold a promise (scripts/mutation
## lists them): killed, lived and efficacy per package, then the survivors. Slow, hours on two
## cores (PKGS=... to choose); against a redis-server and a PostgreSQL server of its own.
mutation:
	GO=$(GO) scripts/mutation

## soak: cadre under load (internal/soak), a table of figures a part: 10,000 concurrent runs
## in the process and against a fake OpenAI API over HTTP, 1,000 MCP clients over streamable
## HTTP, two processes appending to one chat through Redis (a redis-server of its own) and one
## SQLite file. Everything on 127.0.0.1, each part bounded in time; it fails when an invariant
## breaks (an error, a lost or doubled message, a goroutine left). docs/reliability.md keeps
## the figures. Without -race, which would measure the detector.
soak:
	CADRE_SOAK=1 scripts/with-redis $(GO) -C internal/soak test -count=1 -timeout 15m

FUZZTIME ?= 60s
## fuzz: the fuzz targets, FUZZTIME each.
fuzz:
	GO=$(GO) scripts/fuzz-one ./pkg/llmfactory/ FuzzParseConfig $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./internal/schemacheck/ FuzzValidate $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./internal/jsonfind/ FuzzValues $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./internal/ojson/ FuzzParse $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./internal/ojson/ FuzzEncodeString $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./internal/partial/ FuzzClose $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/assistant/ FuzzOutput $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/assistant/ FuzzToolArgs $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/assistant/ FuzzResume $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/tool/ FuzzFuncArgs $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/chat/ FuzzUnmarshalMessages $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/mcpbridge/ FuzzCallTool $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/mcpbridge/ FuzzGetPrompt $(FUZZTIME)
	GO=$(GO) scripts/fuzz-one ./pkg/skill/ FuzzParse $(FUZZTIME)

## interop-deps: the npm packages of the interop tests (MCP, AG-UI), as pinned in interop/package-lock.json,
## in interop/node_modules; installed again when the lock file is newer than the install.
interop-deps: interop/node_modules/.package-lock.json

interop/node_modules/.package-lock.json: interop/package.json interop/package-lock.json
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "The MCP interop tests need Node.js and npm: install Node.js 20 and npm (apt-get install nodejs npm)." >&2; \
		echo "To run the Go tests without them: CADRE_NO_NODE=1 go test ./..." >&2; \
		exit 1; \
	fi
	npm ci --prefix interop --no-audit --no-fund
	@touch $@

## browser-deps: the Chromium that the browser tests drive (internal/browsertest).
## scripts/ensure-chromium installs Debian's chromium where it is missing, when it runs as root
## with apt-get, and otherwise stops, saying what to install; CADRE_NO_BROWSER=1 skips the
## browser tests and this check.
browser-deps:
	scripts/ensure-chromium

vet:
	$(GO) vet $(PKGS)

## lint: staticcheck, fetched through the Go module proxy at a pinned version.
lint:
	$(GO) run $(STATICCHECK) $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change these files (run 'make fmt'):"; echo "$$out"; exit 1; fi

## bench: the run-loop benchmarks beside their hand-written baselines, with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

cover:
	$(GO) test -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -1

quickstart:
	$(GO) run ./examples/quickstart
