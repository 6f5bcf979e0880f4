#!/usr/bin/env bash
# Times whale-ls search against ripgrep on the Go toolchain's source tree and
# checks that both report the same matches.
#
#   bench/search/run.sh [RUNS] [TREE]
#
# RUNS (default 7) timed runs per case after one warm-up run; the median wall
# time is reported. TREE defaults to "$(go env GOROOT)/src". What is timed is
# a whole process each time: ripgrep, and a small Go program
# (bench/search/main.go) that calls the search package exactly as the grep
# and search_files tools do and prints every match; process start is
# included on both sides.
set -euo pipefail

runs=${1:-7}
tree=${2:-"$(go env GOROOT)/src"}
here=$(cd "$(dirname "$0")" && pwd)
command -v rg >/dev/null || { echo "ripgrep (rg) is not installed; install it (Debian: apt-get install ripgrep) and run again" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/../.." && go build -o "$work/wsearch" ./bench/search)

# measure CMD...: runs CMD once to warm up, then $runs times with stdout to a
# file, and prints "WALL CPU": the median wall time and the median CPU time
# (user + system, all threads) in milliseconds.
measure() {
	"$@" >"$work/out" 2>/dev/null || true
	local TIMEFORMAT='%R %U %S' walls=() cpus=()
	for ((i = 0; i < runs; i++)); do
		{ time "$@" >"$work/out" 2>/dev/null || true; } 2>"$work/time"
		read -r real user sys <"$work/time"
		walls+=("$real")
		cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')")
	done
	local wall cpu
	wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] * 1000}')
	cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] * 1000}')
	echo "$wall $cpu"
}

cd "$tree"
rg_flags=(--hidden --no-require-git --no-ignore-global -n --no-heading --with-filename --color never)
status=0
printf '%-30s %8s %8s %6s %5s  %8s %8s %6s  %s\n' case "rg ms" "whale ms" ratio goal "rg cpu" "wh cpu" "ratio" "same matches"
run_case() { # name goal kind args...
	local name=$1 goal=$2 kind=$3
	shift 3
	local rg_cmd ws_cmd
	if [[ $kind == files ]]; then
		rg_cmd=(rg --files --hidden --no-require-git --no-ignore-global -g "$1")
		ws_cmd=("$work/wsearch" -root . -files "**/$1")
	else
		local flags=() pat=$1
		[[ $kind == icase ]] && flags=(-i)
		rg_cmd=(rg "${rg_flags[@]}" "${flags[@]}" -e "$pat")
		ws_cmd=("$work/wsearch" -root . "${flags[@]}" "$pat")
	fi
	local rg_ms ws_ms rg_cpu ws_cpu
	read -r rg_ms rg_cpu < <(measure "${rg_cmd[@]}")
	"${rg_cmd[@]}" 2>/dev/null | sed 's|^\./||' | cut -d: -f1,2 | sort >"$work/rg.set" || true
	read -r ws_ms ws_cpu < <(measure "${ws_cmd[@]}")
	"${ws_cmd[@]}" 2>/dev/null | cut -d: -f1,2 | sort >"$work/ws.set"
	local same n
	n=$(wc -l <"$work/rg.set")
	if cmp -s "$work/rg.set" "$work/ws.set"; then
		same="yes ($n)"
	else
		same="NO: $(comm -23 "$work/rg.set" "$work/ws.set" | wc -l) only rg, $(comm -13 "$work/rg.set" "$work/ws.set" | wc -l) only whale"
		comm -3 "$work/rg.set" "$work/ws.set" | head -5 >&2
		status=1
	fi
	local ratio cpu_ratio
	ratio=$(awk -v a="$ws_ms" -v b="$rg_ms" 'BEGIN {printf "%.2f", a/b}')
	cpu_ratio=$(awk -v a="$ws_cpu" -v b="$rg_cpu" 'BEGIN {printf "%.2f", a/b}')
	if awk -v r="$ratio" -v g="$goal" 'BEGIN {exit !(r > g)}'; then
		same="$same; OVER GOAL"
		status=1
	fi
	printf '%-30s %8s %8s %5sx %4sx  %8s %8s %5sx  %s\n' "$name" "$rg_ms" "$ws_ms" "$ratio" "$goal" "$rg_cpu" "$ws_cpu" "$cpu_ratio" "$same"
}

run_case "literal: func main" 1.5 plain 'func main'
run_case "-i content-type" 1.5 icase 'content-type'
run_case 'func \w+Handler\(' 2.5 plain 'func \w+Handler\('
run_case '\b[A-Z]{3,}_[A-Z]+\b' 2.5 plain '\b[A-Z]{3,}_[A-Z]+\b'
run_case "files **/*_test.go" 1.5 files '*_test.go'
echo "tree: $tree ($(rg --files "${rg_flags[@]:0:3}" | wc -l) files); median of $runs runs after a warm-up; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); $(rg --version | sed -n 1p)"
echo "timed: whole processes (rg, and bench/search/main.go driving the search package), start-up included"
exit $status
