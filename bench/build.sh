#!/usr/bin/env bash
# What users wait for, measured: the size of each binary, the `go build` Pulumi runs before each
# program run (twice per `pulumi up`) with and without a buildTarget, and `clusterplane validate`
# of every example in one process. `make bench` runs it after the Go benchmarks; bench/README.md
# quotes its figures.
#
# The Pulumi CLI is not needed: with `runtime.options.buildTarget` the Go language host runs
# `go build -o <buildTarget>` in the program's folder, and without it `go build -o <a new temp
# file>`. This script runs those two commands.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Every kind's program: the folders under iac/pulumi that hold one.
programs=($(for d in iac/pulumi/*/main.go; do basename "$(dirname "$d")"; done))

# seconds runs a command and prints its wall time in seconds.
seconds() {
	local start end
	start=$(date +%s.%N)
	"$@" >/dev/null
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

echo "--- go build of every binary once (fills the build cache; not measured)"
go build -o "$out/" ./iac/pulumi/... ./cmd/clusterplane

echo "--- binary sizes"
for bin in "${programs[@]}" clusterplane; do
	awk -v n="$bin" -v b="$(stat -c %s "$out/$bin")" 'BEGIN { printf "%-32s %6.1f MB\n", n, b / 1e6 }'
done

echo "--- go build of an unchanged program before a run, in seconds ($runs runs each)"
printf "%-32s %-28s %s\n" program "without buildTarget (links)" "with buildTarget (up to date)"
for p in "${programs[@]}"; do
	fresh=() kept=()
	for i in $(seq "$runs"); do
		fresh+=("$(cd "iac/pulumi/$p" && seconds go build -o "$out/fresh-$p-$i")")
		kept+=("$(cd "iac/pulumi/$p" && seconds go build -o "$out/$p")")
	done
	printf "%-32s %-28s %s\n" "$p" "${fresh[*]}" "${kept[*]}"
done

echo "--- one process: clusterplane validate examples/ (wall time, process start included)"
times=()
for i in $(seq "$runs"); do
	times+=("$(seconds "$out/clusterplane" validate examples/)")
done
echo "${times[*]} s for $(find examples -name '*.yaml' ! -name Pulumi.yaml | wc -l) files"
