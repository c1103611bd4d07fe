#!/usr/bin/env bash
# `clusterplane discover` at the scale of a real account: the loopback DigitalOcean and Civo APIs
# of the tests (tools/fakeclouds) seeded with 100 clusters and 100 more pools each, as doctl and
# the civo CLI would make them, then discover of each account measured: wall time, peak memory
# and the requests it sent (DigitalOcean allows 250 a minute per token). No engine needed.
# `make bench` runs it; bench/README.md quotes its figures.
set -euo pipefail
cd "$(dirname "$0")/.."

clusters=${CLUSTERS:-100}
work=$(mktemp -d)
fakes=
cleanup() {
	[[ -n $fakes ]] && kill "$fakes" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/" ./cmd/clusterplane ./tools/fakeclouds

"$work/fakeclouds" -token bench-token -seed "$clusters" -env "$work/clouds.env" &
fakes=$!
for _ in $(seq 100); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
set -a
# shellcheck disable=SC1091
source "$work/clouds.env"
set +a
export DIGITALOCEAN_TOKEN=bench-token CIVO_TOKEN=bench-token

echo "--- discover of an account of $clusters clusters and $clusters more pools"
for cloud in digitalocean civo; do
	/usr/bin/time -f "%e %M" -o "$work/time" "$work/clusterplane" discover "$cloud" --dir "$work/$cloud" >"$work/out" 2>"$work/err" || {
		cat "$work/err"
		exit 1
	}
	read -r t m <"$work/time"
	files=$(find "$work/$cloud" -name '*.yaml' | wc -l)
	requests=$(sed -n 's/.*(\([0-9]*\) requests).*/\1/p' "$work/out")
	printf "%-14s %6.2f s  %5d MB  %4d files  %3d requests\n" "$cloud" "$t" $((m / 1024)) "$files" "$requests"
done
