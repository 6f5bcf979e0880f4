# The one test command (README, CI): format check, vet, race tests, short fuzzing.
GO        ?= go
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# fail a clean run with "context deadline exceeded" when the time is up
# (go.dev/issue/75804, fixed in Go 1.27). 60000 runs take 3-20 s per target.
FUZZTIME  ?= 60000x

# Fuzz targets as package:Target; each runs FUZZTIME inputs.
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
	./search:FuzzScanAgreesWithRegexp \
	./execboundary:FuzzParseCommandLine \
	./changes:FuzzMerge3

.PHONY: test fmt-check vet race fuzz replay neovim vscode vscode-e2e vscode-chat-e2e vscode-package mcp-conformance hosts build build-test bench-rpc cross wine

test: fmt-check vet cross wine race fuzz neovim vscode vscode-package vscode-e2e vscode-chat-e2e mcp-conformance hosts

build:
	$(GO) build -o bin/whale-ls ./cmd/whale-ls

# The test binary: the release one plus the test tools (test_ask, test_wait,
# test_stuck), which WHALE_LS_TEST_TOOLS=1 then registers.
build-test:
	$(GO) build -tags whaletest -o bin/whale-ls-test ./cmd/whale-ls

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

# Every release target builds, vets and compiles its tests (CGO off).
CROSS_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross:
	@set -e; for t in $(CROSS_TARGETS); do \
		os=$${t%%/*}; arch=$${t##*/}; echo "cross $$os/$$arch"; \
		pkgs=$$(GOOS=$$os GOARCH=$$arch $(GO) list ./...); \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build ./...; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) vet ./...; \
		out=$$(CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) test -c -o /dev/null $$pkgs 2>&1) || { echo "$$out"; exit 1; }; \
	done

# The Windows build under Wine (wine64): whale-ls.exe call of the file,
# search, edit and shell tools, and the Windows tests of workspace, terminal
# and edits. Skipped without wine64, except in CI (CI=true).
wine:
	bash scripts/wine/smoke.sh

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# The Neovim plugin's tests, in headless Neovim against the real server.
# Without nvim they are skipped, except in CI (CI=true), where .ci/run
# installs it. With WHALE_NVIM_011 (a Neovim 0.11 bin/nvim) the suite runs
# on it too, and with WHALE_NVIM_PLUGINS (extracted codecompanion.nvim-*,
# plenary.nvim-*, avante.nvim-* and nui.nvim-* folders) the real CodeCompanion
# and avante tests run there; .ci/run sets both from ../shared/testbed.
# WHALE_GOPLS (a gopls binary; .ci/run installs it) runs the language tools
# test on both versions.
neovim: build-test
	@if command -v nvim >/dev/null; then \
		WHALE_GOPLS="$$WHALE_GOPLS" WHALE_NVIM_PLUGINS= WHALE_LS=$(CURDIR)/bin/whale-ls-test bash editors/neovim/tests/run.sh; \
	elif [ "$$CI" = true ]; then echo "nvim is missing"; exit 1; \
	else echo "nvim not installed: Neovim plugin tests skipped"; fi
	@if [ -n "$$WHALE_NVIM_011" ]; then \
		NVIM="$$WHALE_NVIM_011" WHALE_GOPLS="$$WHALE_GOPLS" WHALE_LS=$(CURDIR)/bin/whale-ls-test bash editors/neovim/tests/run.sh; \
	else echo "WHALE_NVIM_011 not set: the Neovim 0.11 run and the real CodeCompanion and avante tests skipped (install Neovim 0.11 and set WHALE_NVIM_011=<dir>/bin/nvim, WHALE_NVIM_PLUGINS=<folder of codecompanion.nvim-*, plenary.nvim-*, avante.nvim-* and nui.nvim-*>)"; fi

# The VS Code extension: type check, package.json in step with the catalog,
# unit tests (node's test runner, one against the real server).
vscode:
	cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && npm test

# Per-target packages of the extension: one .vsix per VS Code target with
# that platform's binary (editors/vscode/dist/whale-ls-<target>.vsix); each
# package is opened and its binary's GOOS/GOARCH checked. `make test` builds
# two targets that are not the host's; VSCODE_TARGETS= (empty) builds all six.
VSCODE_TARGETS ?= darwin-arm64 win32-x64
vscode-package:
	cd editors/vscode && node scripts/package-targets.mjs --check $(VSCODE_TARGETS)

# The extension end to end in a real VS Code (code-server) through Chromium;
# the script installs what it needs and prints "N passed, M failed".
vscode-e2e:
	bash editors/vscode/test/e2e.sh

# Chat turns in that VS Code's agent mode (its bundled Copilot Chat) with a
# scripted model calling whale's tools; prints "N passed, M failed".
vscode-chat-e2e:
	bash editors/vscode/test/chat-e2e.sh

# MCP conformance of the real `whale-ls mcp`, driven by the official MCP
# TypeScript SDK client (pinned in mcpfront/conformance/package-lock.json)
# and raw lines; node's test runner prints the summary.
mcp-conformance: build
	cd mcpfront/conformance && npm ci --no-audit --no-fund --loglevel=error && WHALE_LS=$(CURDIR)/bin/whale-ls npm test

# Real agent CLIs as MCP hosts of the real `whale-ls mcp` (mcpfront/hosts,
# build tag "hosts"): Claude Code, Codex CLI, Gemini CLI, opencode,
# Copilot CLI and Qwen Code from npm, cached under ${XDG_CACHE_HOME:-~/.cache}/whale-ls/hosts,
# each driven through a turn by a scripted model on 127.0.0.1, in a
# loopback-only network namespace when run as root. Without npm or the
# registry a host is skipped, except in CI (CI=true).
hosts: build
	$(GO) vet -tags hosts ./mcpfront/hosts
	WHALE_LS=$(CURDIR)/bin/whale-ls $(GO) test -tags hosts -count=1 -timeout 30m -v ./mcpfront/hosts

bench-rpc:
	$(GO) run ./bench/rpc

# The edit replay corpus (edits/replay): every commit of the project's own
# history, or of REPLAY_REPO (a local clone), replayed through the real edit
# tools; prints cases, applied, refused and wrong, and fails on any wrong
# case. `make test` runs the newest few commits (TestReplay's slice).
# REPLAY_FLAGS adds TestReplay's flags (-replay.commits N: the newest N only).
REPLAY_REPO ?=
REPLAY_FLAGS ?=
replay:
	cd edits/replay && $(GO) test -count=1 -timeout 60m -run '^TestReplay$$' -replay.all $(if $(REPLAY_REPO),-replay.repo $(abspath $(REPLAY_REPO))) $(REPLAY_FLAGS)
