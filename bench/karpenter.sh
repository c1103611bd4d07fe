#!/usr/bin/env bash
# Karpenter on the real control plane `make kube` builds (e2e/karpenterbench_test.go): how long a
# pending pod waits for a Ready node (5 rounds, each from no node to the pod running, then
# consolidated away), and what 100 pending pods of 1 CPU and 1 GiB cost: the time until all run,
# the NodeClaims and Nodes made, their sizes. Each figure is a BENCH line; bench/README.md quotes
# them. `make bench-karpenter` runs it; it needs `make kube`, and says so without it.
set -euo pipefail
cd "$(dirname "$0")/.."
CLUSTERPLANE_BENCH_KARPENTER=1 go test -tags e2e -count=1 -v -timeout 30m \
	-run '^(TestKarpenterBench|TestKarpenterCoreProvisions)' ./e2e/ | tee /dev/stderr | grep '^BENCH' || {
	echo "bench/karpenter.sh: the benchmark printed no figures (its log is above)" >&2
	exit 1
}
