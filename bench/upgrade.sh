#!/usr/bin/env bash
# A fleet's Kubernetes upgrade at scale, on the real engine and the real DigitalOcean plugin
# (`make engine`) against the loopback DigitalOcean of the tests (tools/fakeclouds), whose every
# upgrade takes UPGRADE_TIME (default 4s): CLUSTERS clusters (default 100) over four environments,
# deployed at 1.31.1-do.5, then `clusterplane upgrade apply --to 1.33.1-do.0 --canary 1 --parallel
# PARALLEL (default 5) --soak SOAK (default 2s)`: three steps each (the latest 1.31 patch first,
# as DigitalOcean asks, then 1.32, then 1.33). It checks, from the cloud's request log, that each
# cluster was sent each step exactly once, and that every manifest names 1.33.1-do.0. From the
# rollout's report file it prints:
#   - clusterplane's own time per step: a step's time (written, deployed by the engine, waited for
#     until the cluster runs the version with every node running) less the cloud's upgrade time,
#     mean and largest; the time between the step's end and the read that finds it ended is part
#     of it (POLL, default 500ms, until the rollout's first steps show how long one takes);
#   - the rollout's wall time beside the time its steps alone would take with no gap between
#     them: each wave's clusters handed to PARALLEL workers in the wave's order, each cluster's
#     steps back to back, the waves and their soaks one after another; and the ratio of the two;
#   - the requests the cloud answered during the rollout and the most in any minute.
# All clusters' reads of their health keep to 125 a minute together, whatever POLL is.
# bench/README.md quotes its figures. KEEP=DIR keeps the manifests, the report and the logs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

for binary in .engine/bin/pulumi .engine/plugins/pulumi-resource-digitalocean; do
	if [[ ! -x $binary ]]; then
		echo "--- upgrade benchmark skipped: $binary is not built (make engine)"
		exit 0
	fi
done
clusters=${CLUSTERS:-100}
parallel=${PARALLEL:-5}
upgrade_time=${UPGRADE_TIME:-4s}
soak=${SOAK:-2s}
poll=${POLL:-500ms}

work=${KEEP:-$(mktemp -d)}
mkdir -p "$work/bin" "$work/home" "$work/state" "$work/tmp" "$work/fleet"
fakes=
cleanup() {
	if [[ -n $fakes ]]; then
		kill "$fakes" 2>/dev/null || true
		wait "$fakes" 2>/dev/null || true
	fi
	if [[ -z ${KEEP:-} ]]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
go build -o "$work/bin/" ./cmd/clusterplane ./cmd/pulumi-resource-clusterplane ./tools/fakeclouds

# The plugins, installed where `pulumi plugin install resource NAME VERSION --file BINARY` puts them.
install() {
	mkdir -p "$work/home/plugins/resource-$1-v$2"
	ln -sf "$3" "$work/home/plugins/resource-$1-v$2/pulumi-resource-$1"
}
install digitalocean "$(go list -m -f '{{.Version}}' github.com/pulumi/pulumi-digitalocean/sdk/v4 | sed 's/^v//')" "$root/.engine/plugins/pulumi-resource-digitalocean"
install clusterplane 0.0.0 "$work/bin/pulumi-resource-clusterplane"

# A token and a passphrase of this run only, never printed.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
passphrase=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
log=$work/requests
"$work/bin/fakeclouds" -token "$token" -env "$work/clouds.env" -requests "$log" -upgrade-time "$upgrade_time" &
fakes=$!
for _ in $(seq 600); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
[[ -s $work/clouds.env ]] || { echo "the loopback clouds did not start" >&2; exit 1; }
set -a
# shellcheck disable=SC1091
source "$work/clouds.env"
set +a
export PATH="$work/bin:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" PULUMI_BACKEND_URL="file://$work/state" \
	PULUMI_CONFIG_PASSPHRASE=$passphrase PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_IGNORE_AMBIENT_PLUGINS=true PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 STACK_INPUT_FILE="" \
	DIGITALOCEAN_TOKEN=$token TMPDIR="$work/tmp"

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
  kubernetesVersion: 1.31.1-do.5
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
EOF
done

cd "$work"
echo "--- upgrade apply: $clusters clusters, 1.31.1-do.5 → 1.33.1-do.0, --canary 1 --parallel $parallel --soak $soak, upgrades of $upgrade_time"
start=$(date +%s)
clusterplane up fleet --yes --quiet --parallel 8 >"$work/up.out" 2>&1 || { tail -20 "$work/up.out" >&2; exit 1; }
echo "deployed in $(($(date +%s) - start)) s"
before=$(wc -l <"$log")
start=$(date +%s.%N)
code=0
clusterplane upgrade apply fleet --to 1.33.1-do.0 --allow-unchecked-apis --canary 1 --parallel "$parallel" \
	--soak "$soak" --poll "$poll" --report-file rollout.json >"$work/apply.out" 2>"$work/apply.err" || code=$?
end=$(date +%s.%N)
if [[ $code != 0 ]]; then
	echo "upgrade apply exited $code:" >&2
	tail -20 "$work/apply.out" "$work/apply.err" >&2
	exit 1
fi
grep "clusters at their goal" "$work/apply.out"

# Each cluster sent each of its three steps once: 3 accepted upgrades an id, and no more.
sed -n "$((before + 1)),\$p" "$log" | awk -v want="$clusters" '$2 == "digitalocean" && $3 == "POST" && $4 == 202 && $5 ~ /\/upgrade$/ {
	sent[$5]++; n++
} END {
	bad = 0
	for (p in sent) if (sent[p] != 3) { print "sent " sent[p] " upgrades to " p; bad = 1 }
	if (length(sent) != want) { print "upgrades went to " length(sent) " clusters, not " want; bad = 1 }
	printf "upgrades the cloud accepted: %d, to %d clusters, 3 each: %s\n", n, length(sent), bad ? "NO" : "yes"
	exit bad
}'
# Every request the cloud answered during the rollout (the plugins' and clusterplane's), and the
# most in any 60 seconds: DigitalOcean allows a token 250 a minute.
sed -n "$((before + 1)),\$p" "$log" | awk '$2 == "digitalocean" {
	at[n++] = $1
} END {
	most = 0
	for (i = j = 0; i < n; i++) {
		while (at[i] - at[j] >= 60) j++
		if (i - j + 1 > most) most = i - j + 1
	}
	printf "requests to the cloud during the rollout: %d, the most in any minute: %d\n", n, most
}'
at_goal=$(grep -l "kubernetesVersion: 1.33.1-do.0" fleet/*.yaml | wc -l)
echo "manifests naming 1.33.1-do.0: $at_goal of $clusters"
[[ $at_goal == "$clusters" ]]

python3 - "$work/rollout.json" "$start" "$end" "$parallel" "$upgrade_time" "$soak" <<'EOF'
import datetime, heapq, json, re, sys

report, start, end, parallel = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])

def seconds(d):
    m = re.fullmatch(r"([0-9.]+)(ms|s|m)", d)
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)]

def at(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

upgrade, soak = seconds(sys.argv[5]), seconds(sys.argv[6])
own, ideal, steps = [], 0.0, 0
for i, wave in enumerate(report["waves"]):
    workers = [0.0] * parallel
    for c in wave["clusters"]:
        path = 0.0
        for s in c["steps"]:
            took = at(s["end"]) - at(s["start"])
            own.append(took - upgrade)
            path += took
            steps += 1
        heapq.heappush(workers, heapq.heappop(workers) + path)
    ideal += max(workers) + (soak if i < len(report["waves"]) - 1 else 0)
wall = end - start
print(f"steps: {steps}; clusterplane's own time a step: mean {sum(own) / len(own):.2f} s, largest {max(own):.2f} s")
print(f"wall time {wall:.1f} s; the steps and soaks alone, back to back in waves: {ideal:.1f} s; ratio {wall / ideal:.2f}")
EOF
