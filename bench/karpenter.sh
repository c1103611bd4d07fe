#!/usr/bin/env bash
# Karpenter on the real control plane `make kube` builds (e2e/karpenterbench_test.go), each figure a
# BENCH line that bench/README.md quotes:
# - the floor, Karpenter core with its own kwok provider: how long a pending pod waits for a Ready
#   node (5 rounds, each from no node to the pod running, then consolidated away), and what 100
#   pending pods of 1 CPU and 1 GiB cost (time until all run, NodeClaims, Nodes, sizes);
# - the same with the clouds' provider (karpenter-clusterplane) against the loopback DigitalOcean
#   and Civo clouds, plus the cloud requests it made, counted at the loopback cloud by method and
#   path, and its requests per minute beside DigitalOcean's limits.
# `make bench-karpenter` runs it; it needs `make kube`, and says so without it.
set -euo pipefail
cd "$(dirname "$0")/.."
CLUSTERPLANE_BENCH_KARPENTER=1 go test -tags e2e -count=1 -v -timeout 60m \
	-run '^(TestKarpenterBench|TestKarpenterCoreProvisions)' ./e2e/ | tee /dev/stderr | grep '^BENCH' || {
	echo "bench/karpenter.sh: the benchmark printed no figures (its log is above)" >&2
	exit 1
}
