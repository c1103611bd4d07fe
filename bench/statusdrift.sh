#!/usr/bin/env bash
# `clusterplane status --drift` against `clusterplane drift` on a fleet of unchanged DigitalOcean
# clusters (issue 64), side by side in one run, on the real engine and DigitalOcean plugin (`make
# engine`) against the loopback DigitalOcean of tools/fakeclouds. Both go through the fleet scan
# (one list of the cloud, the engine only for the stacks it cannot vouch for); `status --drift
# --deep` previews every stack, as status --drift did before it scanned.
#
# The fleet is made as bench/fleet.sh makes it: one stack deployed through the engine, then
# tools/fleetgen writes STACKS copies of it into the file backend and the cloud's state file.
# Each command runs RUNS times, the three taking turns; the figures are each one's median wall
# time and the Pulumi CLI processes a run started (a `pulumi` wrapper first on PATH counts them).
# The run fails when status --drift takes more than twice drift's time, starts an engine on the
# unchanged fleet, or a command does not exit 0.
#
#   STACKS=20  the fleet's size     RUNS=3  runs of each command
# `make bench` runs it after bench/deploy.sh; bench/README.md quotes its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ ! -x .engine/bin/pulumi || ! -x .engine/plugins/pulumi-resource-digitalocean ]]; then
	echo "--- status --drift benchmark skipped: the Pulumi engine or the DigitalOcean plugin is not built (make engine)"
	exit 0
fi
stacks=${STACKS:-20}
runs=${RUNS:-3}
work=$(mktemp -d)
fakes=
stop_fakes() {
	if [[ -n $fakes ]]; then
		kill "$fakes" 2>/dev/null || true
		wait "$fakes" 2>/dev/null || true
		fakes=
	fi
}
cleanup() {
	stop_fakes
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin" "$work/wrap" "$work/home/plugins/resource-digitalocean-v4.57.0" "$work/base"
go build -o "$work/bin/" ./cmd/clusterplane ./tools/fakeclouds ./tools/fleetgen

# The engine behind a wrapper that counts its starts; the plugin installed as `pulumi plugin
# install` would.
cat >"$work/wrap/pulumi" <<EOF
#!/usr/bin/env bash
echo "\$PPID" >>"$work/engines"
exec "$root/.engine/bin/pulumi" "\$@"
EOF
chmod +x "$work/wrap/pulumi"
ln -s "$root/.engine/plugins/pulumi-resource-digitalocean" "$work/home/plugins/resource-digitalocean-v4.57.0/"
: >"$work/engines"

# A stack records its provider's API URL: the cloud is served on one port throughout.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# start_fakes STATEFILE: the loopback clouds, DigitalOcean's loaded from (and saved to) STATEFILE.
start_fakes() {
	rm -f "$work/clouds.env"
	"$work/bin/fakeclouds" -token bench-token -env "$work/clouds.env" \
		-digitalocean-port "$port" -digitalocean-state "$1" &
	fakes=$!
	for _ in $(seq 100); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
	[[ -s $work/clouds.env ]] || { echo "fakeclouds did not start"; exit 1; }
	set -a
	# shellcheck disable=SC1091
	source "$work/clouds.env"
	set +a
}
export PATH="$work/wrap:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" PULUMI_BACKEND_URL="file://$work/base" \
	PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_IGNORE_AMBIENT_PLUGINS=true PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 DIGITALOCEAN_TOKEN=bench-token

manifest=examples/digitaloceankubernetescluster/minimal.yaml
start_fakes "$work/base.cloud.json"
"$work/bin/clusterplane" up "$manifest" --yes >"$work/base.log" 2>&1 || { tail -30 "$work/base.log"; exit 1; }
stop_fakes
cp -r "$work/base" "$work/state"
"$work/bin/fleetgen" -loopback digitalocean -state "$work/state" -cloud "$work/base.cloud.json" -out-cloud "$work/cloud.json" \
	-manifest "$manifest" -out "$work/fleet" -n "$stacks" >/dev/null
export PULUMI_BACKEND_URL="file://$work/state"
start_fakes "$work/cloud.json"

labels=("drift" "status --drift" "status --drift --deep")
commands=("drift" "status --drift" "status --drift --deep")
failed=0
declare -A walls engines
for round in $(seq "$runs"); do
	for i in "${!commands[@]}"; do
		read -r -a args <<<"${commands[$i]}"
		e0=$(wc -l <"$work/engines")
		start=$(date +%s.%N)
		code=0
		"$work/bin/clusterplane" "${args[0]}" "$work/fleet" "${args[@]:1}" >"$work/out" 2>&1 || code=$?
		wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
		if [[ $code != 0 ]]; then
			echo "--- clusterplane ${commands[$i]} (round $round) exited $code:" >&2
			tail -20 "$work/out" >&2
			failed=1
		fi
		walls[$i]+="$wall "
		engines[$i]=$(($(wc -l <"$work/engines") - e0))
	done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | sed -n "$(((runs + 1) / 2))p"; }

echo "--- $stacks unchanged DigitalOcean clusters, each command run $runs times in turn: median wall, engines a run"
declare -A med
for i in "${!commands[@]}"; do
	med[$i]=$(median "${walls[$i]}")
	printf "%-40s %7.2f s  %4d engines   (%s)\n" "clusterplane ${labels[$i]}" "${med[$i]}" "${engines[$i]}" "${walls[$i]% }"
done
ratio=$(awk -v s="${med[1]}" -v d="${med[0]}" 'BEGIN { printf "%.2f", s / d }')
deep=$(awk -v s="${med[1]}" -v d="${med[2]}" 'BEGIN { printf "%.1f", d / s }')
printf "%-40s %7s\n" "status --drift / drift" "$ratio"
printf "%-40s %7sx\n" "status --drift --deep / status --drift" "$deep"
if awk -v r="$ratio" 'BEGIN { exit !(r > 2) }'; then
	echo "--- status --drift took more than twice drift's time" >&2
	failed=1
fi
if [[ ${engines[1]} != 0 ]]; then
	echo "--- status --drift started ${engines[1]} engines on an unchanged fleet, want none" >&2
	failed=1
fi
exit "$failed"
