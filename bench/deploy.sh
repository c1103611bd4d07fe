#!/usr/bin/env bash
# Deploying from clusterplane, measured side by side in one run on the real engine (`make engine`)
# with the stand-in DigitalOcean plugin: `clusterplane preview` of an unchanged stack (the module
# inline, through the Automation API) against `pulumi preview` in a program folder (the Go
# language host builds the program first), and a fleet of 20 manifests previewed serially and
# with --parallel 4. `make bench` runs it after bench/build.sh; the README quotes its figures.
# Without .engine/bin it says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ ! -x .engine/bin/pulumi ]]; then
	echo "--- deploy benchmarks skipped: the Pulumi engine is not built (make engine)"
	exit 0
fi
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home" "$work/state" "$work/cloud" "$work/fleet" "$work/program"
go build -o "$work/bin/" ./cmd/clusterplane ./internal/standin/cmd/pulumi-resource-digitalocean
export PATH="$work/bin:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" PULUMI_BACKEND_URL="file://$work/state" \
	PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 CLUSTERPLANE_STANDIN_CLOUD="$work/cloud" DIGITALOCEAN_TOKEN=bench-token \
	DIGITALOCEAN_API_URL=http://127.0.0.1:9

# measure LABEL CMD...: the median wall time and peak memory of RUNS runs.
measure() {
	local label=$1
	shift
	local times=() peaks=()
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
		read -r t m <"$work/time"
		times+=("$t")
		peaks+=("$m")
	done
	local t m
	t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
	m=$(printf '%s\n' "${peaks[@]}" | sort -n | tail -1)
	printf "%-52s %6.2f s  %5d MB\n" "$label" "$t" $((m / 1024))
	echo "$t" >"$work/last"
}

manifest=examples/digitaloceankubernetescluster/minimal.yaml
clusterplane up "$manifest" --yes >/dev/null 2>&1

cat >"$work/program/Pulumi.yaml" <<EOF
name: digitaloceankubernetescluster
runtime: go
main: $root/iac/pulumi/digitaloceankubernetescluster
EOF
(cd "$work/program" && pulumi stack init bench >/dev/null && STACK_INPUT_FILE="$root/$manifest" pulumi up --yes --skip-preview >/dev/null)

echo "--- an unchanged stack, median of $runs (peak memory includes the Pulumi CLI each starts)"
measure "clusterplane preview" clusterplane preview "$manifest"
inline=$(cat "$work/last")
measure "pulumi preview in the program folder" env -C "$work/program" STACK_INPUT_FILE="$root/$manifest" pulumi preview
folder=$(cat "$work/last")
awk -v a="$folder" -v b="$inline" 'BEGIN { printf "%-52s %6.1fx\n", "clusterplane preview is faster by", a / b }'

echo "--- a fleet of 20 DigitalOcean clusters, median of $runs"
for i in $(seq -w 1 20); do
	sed "s/name: dev-fra1/name: fleet-$i/; s/clusterName: dev-fra1/clusterName: fleet-$i/" "$manifest" >"$work/fleet/c$i.yaml"
done
clusterplane up "$work/fleet" --yes --parallel 4 >/dev/null 2>&1
measure "clusterplane preview of 20, --parallel 1" clusterplane preview "$work/fleet" --parallel 1
serial=$(cat "$work/last")
measure "clusterplane preview of 20, --parallel 4" clusterplane preview "$work/fleet" --parallel 4
parallel=$(cat "$work/last")
awk -v s="$serial" -v p="$parallel" 'BEGIN { printf "%-52s %6.2f\n", "parallel / serial", p / s }'
