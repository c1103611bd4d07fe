#!/usr/bin/env bash
# A fleet's Kubernetes upgrade at scale, in the sandbox, on the real engine and the real
# DigitalOcean plugin (`make engine`): CLUSTERS DigitalOcean clusters (default 100) over four
# environments, deployed at 1.31.9-do.2, then `clusterplane upgrade apply --to 1.33.1-do.0
# --parallel PARALLEL` (default 5): two steps each. The sandbox's DigitalOcean takes UPGRADE_TIME
# (default 4s) over each upgrade. From the rollout's report file it prints:
#   - clusterplane's own time per step: a step's time (written, deployed, waited for until the
#     cluster runs the version with every node ready) less the cloud's upgrade time, mean and
#     largest; the poll interval (POLL, default 500ms) is part of it;
#   - the wall time of the rollout beside the time its steps alone would take with no gap: each
#     wave's clusters handed to PARALLEL workers in the wave's order, each cluster's steps back to
#     back, the waves one after another; and the ratio of the two.
# bench/README.md quotes its figures. KEEP=DIR keeps the manifests, the report and the output.
set -euo pipefail
cd "$(dirname "$0")/.."

for binary in .engine/bin/pulumi .engine/plugins/pulumi-resource-digitalocean; do
	if [[ ! -x $binary ]]; then
		echo "--- upgrade benchmark skipped: $binary is not built (make engine)"
		exit 0
	fi
done
clusters=${CLUSTERS:-100}
parallel=${PARALLEL:-5}
upgrade_time=${UPGRADE_TIME:-4s}
poll=${POLL:-500ms}

work=${KEEP:-$(mktemp -d)}
mkdir -p "$work/fleet"
if [[ -z ${KEEP:-} ]]; then
	trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/" ./cmd/clusterplane
envs=(dev test staging prod)
for ((i = 0; i < clusters; i++)); do
	env=${envs[$((i % 4))]}
	name=$(printf 'up-%s-%03d' "$env" "$i")
	cat >"$work/fleet/$name.yaml" <<EOF
apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: $name
  env: $env
spec:
  clusterName: $name
  region: fra1
  kubernetesVersion: 1.31.9-do.2
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
EOF
done

sandbox() {
	CLUSTERPLANE_SANDBOX_UPGRADE_TIME=$upgrade_time "$work/clusterplane" sandbox --dir "$work/sandbox" --engine "$PWD/.engine" -- "$@"
}
echo "--- upgrade apply: $clusters clusters, 1.31.9-do.2 → 1.33.1-do.0, --parallel $parallel, upgrades of $upgrade_time"
start=$(date +%s)
(cd "$work" && sandbox clusterplane up fleet --yes --quiet --parallel 8 >"$work/up.out" 2>&1)
echo "deployed in $(($(date +%s) - start)) s"
start=$(date +%s.%N)
(cd "$work" && sandbox clusterplane upgrade apply fleet --to 1.33.1-do.0 --allow-unchecked-apis \
	--parallel "$parallel" --poll "$poll" --report-file rollout.json >"$work/apply.out" 2>&1)
end=$(date +%s.%N)
python3 - "$work/rollout.json" "$start" "$end" "$parallel" "$upgrade_time" <<'EOF'
import datetime, heapq, json, re, sys

report, start, end, parallel = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
m = re.fullmatch(r"([0-9.]+)(ms|s)", sys.argv[5])
upgrade = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)

def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

own, ideal, steps = [], 0.0, 0
for wave in report["waves"]:
    workers = [0.0] * parallel
    for c in wave["clusters"]:
        path = 0.0
        for s in c["steps"]:
            took = t(s["end"]) - t(s["start"])
            own.append(took - upgrade)
            path += took
            steps += 1
        free = heapq.heappop(workers)
        heapq.heappush(workers, free + path)
    ideal += max(workers)
wall = end - start
print(f"steps: {steps}; clusterplane's own time a step: mean {sum(own) / len(own):.2f} s, largest {max(own):.2f} s")
print(f"wall time {wall:.1f} s; the steps alone, back to back in waves: {ideal:.1f} s; ratio {wall / ideal:.2f}")
EOF
tail -1 "$work/apply.out" | grep -q "clusters at their goal" || true
grep "clusters at their goal" "$work/apply.out"
