#!/usr/bin/env bash
# Taking over an account at scale, measured side by side in one run: the loopback DigitalOcean and
# Civo APIs of the tests (tools/fakeclouds -seed) hold CLUSTERS clusters (default 100), each with
# one more pool, as doctl and the civo CLI would make them; then, for each cloud, `clusterplane
# discover` writes the manifests and `adopt DIR`, `preview DIR` and `drift DIR` run on them on the
# real engine and the real provider plugins (`make engine`), a local file backend and a passphrase.
# Each command's wall time, peak memory (the largest one process: clusterplane, the Pulumi CLI or a
# plugin) and the requests the loopback clouds received while it ran: reads (GET, HEAD), writes,
# 429s, and the most in any 60 seconds (DigitalOcean allows 250 a minute and 5,000 an hour).
#
# Its own script, not discover.sh's: discover.sh needs no engine and runs anywhere in a second;
# this one needs `make engine` and takes minutes. `make bench` runs it after discover.sh;
# bench/README.md quotes its figures. CLOUDS="digitalocean civo" picks the clouds; PARALLEL (default
# 4, clusterplane's) the stacks run at once; KEEP=DIR keeps each command's output and request log. Without the engine or the plugins it says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

for binary in .engine/bin/pulumi .engine/plugins/pulumi-resource-digitalocean .engine/plugins/pulumi-resource-civo; do
	if [[ ! -x $binary ]]; then
		echo "--- take-over benchmarks skipped: $binary is not built (make engine)"
		exit 0
	fi
done
clusters=${CLUSTERS:-100}
clouds=${CLOUDS:-digitalocean civo}
parallel=${PARALLEL:-4}

work=$(mktemp -d)
fakes=
cleanup() {
	# The fakes first (the commands below run in the foreground, so Ctrl-C has stopped them);
	# then everything they and the engine left behind.
	if [[ -n $fakes ]]; then
		kill "$fakes" 2>/dev/null || true
		wait "$fakes" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$work/bin" "$work/home" "$work/state" "$work/tmp"
go build -o "$work/bin/" ./cmd/clusterplane ./cmd/pulumi-resource-clusterplane ./tools/fakeclouds

# The plugins, installed where `pulumi plugin install resource NAME VERSION --file BINARY` puts
# them, at the versions the modules' SDKs ask for (go.mod); clusterplane's own for Civo pools.
install() {
	mkdir -p "$work/home/plugins/resource-$1-v$2"
	ln -s "$3" "$work/home/plugins/resource-$1-v$2/pulumi-resource-$1"
}
install digitalocean "$(go list -m -f '{{.Version}}' github.com/pulumi/pulumi-digitalocean/sdk/v4 | sed 's/^v//')" "$root/.engine/plugins/pulumi-resource-digitalocean"
install civo "$(go list -m -f '{{.Version}}' github.com/pulumi/pulumi-civo/sdk/v2 | sed 's/^v//')" "$root/.engine/plugins/pulumi-resource-civo"
install clusterplane 0.0.0 "$work/bin/pulumi-resource-clusterplane"

# A token and a passphrase of this run only, never printed: the fakes take any token they are given.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
passphrase=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
log=$work/requests
"$work/bin/fakeclouds" -token "$token" -seed "$clusters" -env "$work/clouds.env" -requests "$log" &
fakes=$!
# Seeding 100 clusters in each cloud takes a few seconds.
for _ in $(seq 600); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
[[ -s $work/clouds.env ]] || { echo "the loopback clouds did not start" >&2; exit 1; }
set -a
# shellcheck disable=SC1091
source "$work/clouds.env"
set +a
export PATH="$work/bin:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" PULUMI_BACKEND_URL="file://$work/state" \
	PULUMI_CONFIG_PASSPHRASE=$passphrase PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_IGNORE_AMBIENT_PLUGINS=true PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 STACK_INPUT_FILE="" \
	DIGITALOCEAN_TOKEN=$token CIVO_TOKEN=$token TMPDIR="$work/tmp"

# measure CLOUD LABEL CMD...: runs CMD once, then prints its wall time, peak memory, exit code and
# the requests CLOUD's API received meanwhile (the log's lines added during it). Exit 3 (blocked,
# would replace, drifted) is an outcome, not a failure; any other code but 0 stops the bench.
measure() {
	local cloud=$1 label=$2
	shift 2
	local before after code=0 t m
	before=$(wc -l <"$log")
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || code=$?
	after=$(wc -l <"$log")
	# KEEP=DIR keeps each command's output there, to read what a drift or a block was about.
	if [[ -n ${KEEP:-} ]]; then
		mkdir -p "$KEEP"
		cp "$work/out" "$KEEP/${label%% (*}.txt"
		sed -n "$((before + 1)),${after}p" "$log" >"$KEEP/${label%% (*}.requests"
	fi
	if [[ $code != 0 && $code != 3 ]]; then
		echo "$label exited $code:" >&2
		tail -n 20 "$work/out" "$work/err" >&2
		exit 1
	fi
	# GNU time writes "Command exited with non-zero status 3" first: the figures are the last line.
	read -r t m < <(tail -1 "$work/time")
	printf "%-34s %8.1f s %6d MB  exit %d  " "$label" "$t" $((m / 1024)) "$code"
	sed -n "$((before + 1)),${after}p" "$log" | awk -v cloud="$cloud" '$2 == cloud {
		at[n++] = $1
		if ($3 == "GET" || $3 == "HEAD") reads++; else writes++
		if ($4 == 429) limited++
	} END {
		# The lines come in the order answered, so the times only grow: a sliding window.
		most = 0
		for (i = j = 0; i < n; i++) {
			while (at[i] - at[j] >= 60) j++
			if (i - j + 1 > most) most = i - j + 1
		}
		printf "%5d reads %5d writes %3d 429s %5d in the busiest minute\n", reads, writes, limited, most
	}'
}

echo "--- taking over an account of $clusters clusters and $clusters more pools, --parallel $parallel, one run each"
printf "%-34s %10s %9s  %6s  %s\n" "command" "wall" "peak" "" "requests to the cloud"
for cloud in $clouds; do
	dir=$work/manifests-$cloud
	measure "$cloud" "$cloud discover" clusterplane discover "$cloud" --dir "$dir"
	files=$(find "$dir" -name '*.yaml' | wc -l)
	measure "$cloud" "$cloud adopt DIR ($files files)" clusterplane adopt "$dir" --parallel "$parallel"
	measure "$cloud" "$cloud preview DIR" clusterplane preview "$dir" --parallel "$parallel"
	measure "$cloud" "$cloud drift DIR" clusterplane drift "$dir" --parallel "$parallel"
done
