# The one test command (README, CI): format check, vet, race tests, short fuzzing.
GO        ?= go
FUZZTIME  ?= 10s

# Fuzz targets as package:Target; each runs for FUZZTIME.
FUZZ_TARGETS := \
	./toolbridge:FuzzPrepareInput \
	./lsp:FuzzFrameStream \
	./edits:FuzzRoundTrip \
	./edits:FuzzEditSpan \
	./edits:FuzzMinimalEdits \
	./edits:FuzzParsePatch \
	./terminal:FuzzTextFilter \
	./terminal:FuzzStreamChunks \
	./terminal:FuzzIsReadOnlyCommand \
	./search:FuzzScanAgreesWithRegexp

.PHONY: test fmt-check vet race fuzz neovim build bench-rpc

test: fmt-check vet race fuzz neovim

build:
	$(GO) build -o bin/whale-ls ./cmd/whale-ls

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# The Neovim plugin's tests, in headless Neovim against the real server.
# Without nvim they are skipped, except in CI (CI=true), where .ci/run
# installs it.
neovim: build
	@if command -v nvim >/dev/null; then \
		WHALE_LS=$(CURDIR)/bin/whale-ls bash editors/neovim/tests/run.sh; \
	elif [ "$$CI" = true ]; then echo "nvim is missing"; exit 1; \
	else echo "nvim not installed: Neovim plugin tests skipped"; fi

bench-rpc:
	$(GO) run ./bench/rpc
