#!/bin/sh
# Prints the edit engine's benchmark figures as ratios to baselines measured
# in the same run. Run from anywhere inside the repository.
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/edits
