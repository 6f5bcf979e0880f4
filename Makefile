# `make check` is the fast lane to run before every commit (format, vet,
# linters, short tests); `make test` is the whole suite CI runs, each target
# timed, skipped with what to install when its programs are missing (a
# failure in CI). TESTING.md says what each needs and what it probes.
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

.PHONY: test check lint lint-go lint-lua lint-ts test-short fmt-check vet race fuzz replay neovim vscode vscode-e2e vscode-chat-e2e vscode-package mcp-conformance acp hosts build build-test bench-rpc bench-tokens cross wine release release-check

# Every target, each to its end, then a table of times and results.
TEST_TARGETS := fmt-check vet lint-go lint-lua lint-ts cross wine race fuzz neovim vscode vscode-package vscode-e2e vscode-chat-e2e mcp-conformance acp hosts release-check
test:
	@bash scripts/run-targets.sh $(TEST_TARGETS)

# The fast lane: what a developer runs before a commit (a few minutes warm).
# Slow, real-host and race parts are behind -short; the test cache is used.
check: fmt-check vet lint test-short

lint: lint-go lint-lua lint-ts

test-short:
	$(GO) test -short ./...

# Go linters at pinned versions, installed from the module proxy into the
# user's cache once: staticcheck (its default checks) and go-errorlint
# (errors compared or asserted without errors.Is/As).
TOOLS           ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/whale-ls/tools
STATICCHECK_VER := v0.8.2
ERRORLINT_VER   := v1.9.1
STATICCHECK     := $(TOOLS)/staticcheck-$(STATICCHECK_VER)/staticcheck
ERRORLINT       := $(TOOLS)/go-errorlint-$(ERRORLINT_VER)/go-errorlint

$(STATICCHECK):
	GOBIN=$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VER)
$(ERRORLINT):
	GOBIN=$(dir $@) $(GO) install codeberg.org/polyfloyd/go-errorlint@$(ERRORLINT_VER)

lint-go: $(STATICCHECK) $(ERRORLINT)
	$(STATICCHECK) -tags whaletest,hosts ./...
	$(ERRORLINT) -tags whaletest,hosts ./...

# The Neovim plugin's Lua (every tracked *.lua): stylua --check
# (.stylua.toml) and luacheck (.luacheckrc, Debian's lua-check) through
# editors/neovim/scripts/lint.sh, which names what is missing. stylua is
# installed from npm, pinned, into the tools cache once.
STYLUA_VER := 2.5.2
STYLUA     := $(TOOLS)/stylua-$(STYLUA_VER)/node_modules/.bin/stylua

$(STYLUA):
	npm install --prefix $(TOOLS)/stylua-$(STYLUA_VER) --no-audit --no-fund --loglevel=error @johnnymorganz/stylua-bin@$(STYLUA_VER)

lint-lua: $(STYLUA)
	STYLUA=$(STYLUA) bash editors/neovim/scripts/lint.sh

# The VS Code extension: typescript-eslint (strictTypeChecked,
# no-floating-promises) and prettier --check, pinned in its package-lock.
# npm ci only when the lock changed since the last install.
lint-ts:
	@if ! command -v npm >/dev/null; then \
		if [ "$$CI" = true ]; then echo "npm is missing"; exit 1; fi; \
		echo "npm not installed: the TypeScript lint is skipped (install Node.js 20 or later with npm)"; exit 0; fi
	@cd editors/vscode && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run --silent lint

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

# Every release target builds and vets, tests included: vet type-checks the
# test files of each target (linking every test binary of six targets as
# well took 931 s of a 36-minute CI run on a loaded machine).
CROSS_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross:
	@set -e; for t in $(CROSS_TARGETS); do \
		os=$${t%%/*}; arch=$${t##*/}; echo "cross $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build ./...; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) vet ./...; \
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
# plenary.nvim-*, avante.nvim-*, nui.nvim-* and lazy.nvim-* folders) the real
# CodeCompanion, avante and lazy.nvim install tests run there; .ci/run sets
# both from ../shared/testbed. The plugin itself is the repository's root
# (lua/, plugin/, doc/, build.lua); its tests stay in editors/neovim/tests.
# WHALE_GOPLS (a gopls binary; .ci/run installs it) runs the language tools
# test on both versions. The CodeCompanion ACP test (0.11) runs the scripted
# agent of acpfront/e2e, whose pinned SDK is installed first where npm is.
neovim: build-test
	@if [ -n "$$WHALE_NVIM_011" ] && command -v npm >/dev/null; then \
		cd acpfront/e2e && npm ci --no-audit --no-fund --loglevel=error; \
	fi
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
# and raw lines over stdio (node's test runner prints the summary); then the
# official conformance suite (@modelcontextprotocol/conformance, pinned
# there too) against `whale-ls mcp --http`, under Node 24 from npm when the
# Node on PATH is older than 22 (mcpfront/conformance/suite.sh). Scenarios
# whale fails on purpose are in expected-failures.yaml (README "MCP").
mcp-conformance: build
	cd mcpfront/conformance && npm ci --no-audit --no-fund --loglevel=error && WHALE_LS=$(CURDIR)/bin/whale-ls npm test
	WHALE_LS=$(CURDIR)/bin/whale-ls mcpfront/conformance/suite.sh

# The real `whale-ls acp` between a client built with the official Agent
# Client Protocol TypeScript SDK and a scripted agent built with the same SDK
# (acpfront/e2e, the SDK pinned in its package-lock.json): reads, stale
# writes merged and refused, a fresh write, terminal commands the exec
# boundary denies, asks about and allows, a canceled turn; node's test
# runner prints the summary.
acp: build
	cd acpfront/e2e && npm ci --no-audit --no-fund --loglevel=error && WHALE_LS=$(CURDIR)/bin/whale-ls npm test

# Real agent CLIs as MCP hosts of the real `whale-ls mcp` (mcpfront/hosts,
# build tag "hosts"): Claude Code, Codex CLI, Gemini CLI, opencode,
# Copilot CLI and Qwen Code from npm, cached under ${XDG_CACHE_HOME:-~/.cache}/whale-ls/hosts,
# each driven through a turn by a scripted model on 127.0.0.1, in a
# loopback-only network namespace when run as root; then again in whale
# mode, after `whale-ls setup HOST`, with none of its built-in edit or
# shell tools offered; and Gemini CLI's ACP mode and claude-agent-acp
# behind `whale-ls acp`: Gemini's own file writes land through whale, and
# with whale's tools neither agent is offered its own edit or shell tool
# while whale's shell_run meets the exec rules (acp_test.go,
# acpagents_test.go). Without npm or the registry a host is skipped,
# except in CI (CI=true).
hosts: build
	$(GO) vet -tags hosts ./mcpfront/hosts
	WHALE_LS=$(CURDIR)/bin/whale-ls $(GO) test -tags hosts -count=1 -timeout 30m -v ./mcpfront/hosts

# The release files of the commit checked out, in dist/ (scripts/release):
# an archive per platform (binary, README, third-party notices), a .vsix
# per VS Code target, a CycloneDX SBOM of the Go modules and SHA256SUMS,
# reproducible (README "Releases").
release:
	$(GO) run ./scripts/release build

# Two platforms and their .vsix built twice from the same commit: the
# checksums, the versions in the binaries (`go version -m`), the archives'
# entries and the .vsix contents checked, and the two builds' archives
# compared byte for byte. Without npm the .vsix are skipped, except in CI.
release-check:
	$(GO) run ./scripts/release twice -targets linux/amd64,windows/arm64 -vsix linux-x64,win32-arm64

bench-rpc:
	$(GO) run ./bench/rpc

# What a result costs the model: bytes and tokens of whale's tool results
# against the peers' formats for the same work (README "What a result costs
# the model").
bench-tokens:
	$(GO) run ./bench/tokens

# The edit replay corpus (edits/replay): every commit of the project's own
# history, or of REPLAY_REPO (a local clone), replayed through the real edit
# tools; prints cases, applied, refused and wrong, and fails on any wrong
# case. `make test` runs the newest few commits (TestReplay's slice).
# REPLAY_FLAGS adds TestReplay's flags (-replay.commits N: the newest N only).
REPLAY_REPO ?=
REPLAY_FLAGS ?=
replay:
	cd edits/replay && $(GO) test -count=1 -timeout 60m -run '^TestReplay$$' -replay.all $(if $(REPLAY_REPO),-replay.repo $(abspath $(REPLAY_REPO))) $(REPLAY_FLAGS)
