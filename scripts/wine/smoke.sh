#!/usr/bin/env bash
# Smoke test of the Windows build under Wine: cross-build whale-ls.exe and
# the Windows test binaries of the platform packages, then run
# `whale-ls.exe call` of the file, search, edit and shell tools and the
# Windows tests, and check every result. Prints "N passed, M failed".
#
# Needs wine64 (Debian: apt-get install wine64) and python3. Without wine64
# it says so and exits 0, except in CI (CI=true), where that is a failure.
# WINE=path overrides the wine64 binary; KEEP=1 keeps the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

wine=${WINE:-}
if [ -z "$wine" ]; then
	for w in wine64 /usr/lib/wine/wine64; do
		if command -v "$w" >/dev/null; then wine=$(command -v "$w"); break; fi
	done
fi
if [ -z "$wine" ]; then
	if [ "${CI:-}" = true ]; then echo "wine64 is missing"; exit 1; fi
	echo "wine64 not installed: the Windows smoke test is skipped (apt-get install wine64)"
	exit 0
fi

tmp=$(mktemp -d)
cleanup() {
	WINEPREFIX=$tmp/prefix "${wine%/*}/wineserver" -k 2>/dev/null || true
	if [ "${KEEP:-}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
export WINEPREFIX=$tmp/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

echo "build whale-ls.exe and the test binaries (windows/amd64)"
export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
go build -o "$tmp/whale-ls.exe" ./cmd/whale-ls
for p in workspace terminal edits internal/filelock; do
	go test -c -o "$tmp/${p##*/}.test.exe" "./$p"
done
unset GOOS GOARCH CGO_ENABLED

echo "make the Wine prefix"
"$wine" wineboot --init >/dev/null 2>&1 || true
# Go 1.24+ binaries need bcryptprimitives.dll (ProcessPrng), which Wine 8.0
# lacks: put a forwarder to advapi32.SystemFunction036 in its place.
sys32=$WINEPREFIX/drive_c/windows/system32
[ -e "$sys32/bcryptprimitives.dll" ] || go run ./scripts/wine/prngdll "$sys32/bcryptprimitives.dll"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/     /'; }

# The workspace, on Wine's C: drive so that the paths are plain Windows ones.
ws=$WINEPREFIX/drive_c/ws
wsw='C:\ws'
mkdir -p "$ws/src"
printf 'first line\r\nsecond line\r\nthird line\r\n' > "$ws/crlf.txt"
printf 'package main\n\nfunc main() {\n\tprintln("hello wine")\n}\n' > "$ws/src/main.go"
printf 'alpha\nbeta\n' > "$ws/notes.txt"
printf '{"shell.program": "C:\\\\windows\\\\system32\\\\cmd.exe", "execBoundary.mode": "best-effort"}\n' > "$ws/../whale.json"

# call TOOL INPUT: the Envelope of `whale-ls.exe call --json`.
call() {
	(cd "$ws" && "$wine" "$tmp/whale-ls.exe" call --root "$wsw" --config 'C:\whale.json' --approve allow --json "$1" "$2" 2>"$tmp/stderr") || true
}
# check NAME ENVELOPE PYTHON-EXPR: the expression sees the Envelope as e.
check() {
	if python3 -c 'import json,sys; e=json.loads(sys.argv[1]); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>/dev/null; then
		ok "$1"
	else
		bad "$1" "$(printf '%s\n%s' "$2" "$(cat "$tmp/stderr")" | head -c 1500)"
	fi
}

e=$(call read_file '{"file_path":"crlf.txt"}')
check read_file "$e" 'e["ok"] and "second line" in e["text"]'

e=$(call list_dir '{"path":"."}')
check list_dir "$e" 'e["ok"] and "crlf.txt" in e["text"] and "src" in e["text"]'

e=$(call grep '{"pattern":"hello wine"}')
check grep "$e" 'e["ok"] and "main.go" in e["text"]'

e=$(call search_files '{"pattern":"*.go"}')
check search_files "$e" 'e["ok"] and "main.go" in e["text"]'

e=$(call edit '{"file_path":"crlf.txt","search":"second line","replace":"second line, edited"}')
check "edit (ok)" "$e" 'e["ok"]'
if [ "$(cat "$ws/crlf.txt")" = "$(printf 'first line\r\nsecond line, edited\r\nthird line\r')" ]; then
	ok "edit keeps CRLF"
else
	bad "edit keeps CRLF" "$(od -c "$ws/crlf.txt" | head -5)"
fi

e=$(call write '{"file_path":"run.bat","content":"@echo off\necho from bat\n"}')
check "write (ok)" "$e" 'e["ok"]'
if [ "$(cat "$ws/run.bat" 2>/dev/null)" = "$(printf '@echo off\r\necho from bat\r')" ]; then
	ok "write of a new .bat gets CRLF"
else
	bad "write of a new .bat gets CRLF" "$(od -c "$ws/run.bat" 2>&1 | head -5)"
fi

patch='*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+beta, patched\n*** Add File: added.txt\n+new file\n*** End Patch\n'
e=$(call apply_patch "{\"patch\":\"$patch\"}")
check "apply_patch (ok)" "$e" 'e["ok"]'
if [ "$(cat "$ws/notes.txt")" = "$(printf 'alpha\nbeta, patched')" ] && [ -f "$ws/added.txt" ]; then
	ok "apply_patch changed notes.txt and added added.txt"
else
	bad "apply_patch changed notes.txt and added added.txt" "$(cat "$ws/notes.txt"; ls "$ws")"
fi

# Six whale-ls.exe processes edit one file at once, each putting its own
# line before END. The cross-process lock (LockFileEx) makes each plan on
# the one before it, so no update is lost: every edit that says it landed
# has its line in the file, and none that was refused does. (Edits may be
# refused here: under Wine a rename fails while another process reads the
# file, and Wine cannot remove the temporary file it leaves.)
printf 'START\nEND\n' > "$ws/shared.txt"
for k in 1 2 3 4 5 6; do
	(cd "$ws" && "$wine" "$tmp/whale-ls.exe" call --root "$wsw" --config 'C:\whale.json' --json edit "{\"file_path\":\"shared.txt\",\"search\":\"END\",\"replace\":\"line $k\\nEND\"}" >"$tmp/par$k.json" 2>&1) &
done
wait
if python3 - "$ws/shared.txt" "$tmp" <<'PY'
import json, sys
text = open(sys.argv[1]).read().split("\n")
landed = set()
for k in range(1, 7):
    out = open(f"{sys.argv[2]}/par{k}.json").read()
    env = json.loads(out[out.index("{"):])
    if env["ok"]:
        landed.add(f"line {k}")
lines = {l for l in text if l.startswith("line ")}
sys.exit(0 if landed and lines == landed and text[0] == "START" and text[-2:] == ["END", ""] else 1)
PY
then
	ok "six concurrent whale-ls.exe edits of one file: no update lost ($(grep -c '^line' "$ws/shared.txt") landed)"
else
	bad "six concurrent whale-ls.exe edits of one file: no update lost" "$(cat "$ws/shared.txt"; cat "$tmp"/par*.json | head -c 1500)"
fi

e=$(call shell_run '{"command":"cmd.exe /c echo hi","mode":"pipe"}')
check "shell_run pipe: cmd.exe /c echo hi" "$e" 'e["ok"] and "hi" in e["text"] and e.get("data",{}).get("exit_code",0) == 0'

e=$(call shell_run '{"command":"run.bat","mode":"pipe"}')
check "shell_run pipe: the written .bat runs" "$e" 'e["ok"] and "from bat" in e["text"]'

e=$(call shell_run '{"command":"exit 7","mode":"pty"}')
check "shell_run pty (ConPTY): starts attached to a pseudoconsole, exit code 7" "$e" '"exit" in e["text"].lower() and "7" in e["text"] and "runs over pipes" not in e["text"]'

# The Windows tests of the platform packages that Wine can run (the others
# need a POSIX shell, symlinks or os.RemoveAll, see README "Platforms").
runtests() { # NAME DIR BINARY RUN-REGEXP SKIP-REGEXP
	local out
	out=$(cd "$2" && "$wine" "$tmp/$3" -test.v -test.run "$4" -test.skip "$5" -test.timeout 120s 2>&1) && st=0 || st=$?
	local np ns nf
	np=$(grep -c '^--- PASS' <<<"$out" || true)
	ns=$(grep -c '^--- SKIP' <<<"$out" || true)
	nf=$(grep -c '^--- FAIL' <<<"$out" || true)
	if [ "$st" = 0 ] && [ "$nf" = 0 ]; then
		ok "$1: $np passed, $ns skipped"
		grep -B1 '^--- SKIP' <<<"$out" | grep -v -e '^--' -e '^=== ' | sed 's/^ */     skip: /' || true
	else
		bad "$1: $np passed, $nf failed" "$(grep -v '^=== RUN' <<<"$out" | tail -30)"
	fi
}
runtests "workspace tests (Windows paths)" "$repo/workspace" workspace.test.exe 'Windows|Junction' '^$'
runtests "terminal tests (ConPTY, Job objects, cmd.exe)" "$repo/terminal" terminal.test.exe 'ConPTY|PipeModeCmd|Classify|IsReadOnly|Filter' 'SleepHelper'
# Commit and its locks remove files through os.Root, which Wine 8.0 refuses.
runtests "edits tests (text engine, without Commit)" "$repo/edits" edits.test.exe '.' 'Commit|Lock'
runtests "filelock tests (LockFileEx)" "$repo/internal/filelock" filelock.test.exe '.' '^$'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
