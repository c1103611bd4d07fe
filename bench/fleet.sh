#!/usr/bin/env bash
# Fleets of DigitalOcean clusters already deployed (issues 51 and 79): `clusterplane status`,
# `drift`, an unchanged `preview` and an unchanged `up --yes` on fleets of 1,000, 3,000 and 10,000
# stacks for today's binary (the checkout), on the real engine and DigitalOcean plugin (`make
# engine`) against the loopback DigitalOcean of tools/fakeclouds; the binary before issue 51's
# work (commit 6de0a4d^) is measured beside it on fleets under 1,000 (FLEET_OLD_1000=1: at 1,000
# and over too, many minutes a command).
#
# The fleet is not deployed through the engine (1,000 stacks would take most of an hour): one
# stack (examples/digitaloceankubernetescluster/minimal.yaml) is, then tools/fleetgen writes N
# copies of it, fleet-0001 to fleet-NNNN, into the file backend (checkpoints and history records)
# and into the cloud's state file that fakeclouds then serves (-digitalocean-state).
#
# For each command: wall and CPU seconds (user+sys of the command and every child it waited for,
# /usr/bin/time), peak memory of the whole process tree (bench/treepeak.py, sampled every 100 ms:
# the sum of its processes' proportional set sizes, each binary's shared pages counted once),
# Pulumi CLI processes started (a `pulumi` wrapper first on PATH counts them), DigitalOcean plugin
# processes started (a wrapper in PULUMI_HOME) and requests the cloud answered (fakeclouds
# -requests). A command that fails (drift exits 3 when it finds drift: an unchanged fleet must
# have none) is marked and the script exits non-zero.
#
# Each step of a command on one stack must cost the same whatever the fleet's size: for each
# command, each figure at the largest size is divided by the figure at the smallest, and the script
# exits non-zero when the wall or CPU ratio of any command exceeds FLEET_MAX_RATIO (15 for ten
# times the stacks; scaled by the sizes' ratio for others).
#
#   FLEET_SIZES="1000 3000 10000"  the fleet sizes (default those three), smallest first
#   FLEET_OLD_1000=1        also measure the old binary at 1,000 stacks and over
#   FLEET_MAX_RATIO=15      the largest ratio allowed for ten times the stacks
#   NEW_STATUS_FLAGS, NEW_DRIFT_FLAGS, NEW_PREVIEW_FLAGS, NEW_UP_FLAGS: extra flags for the new
#   binary (OLD_..._FLAGS the same for the old one)
#   FLEET_OLD_REV           the old commit (default 6de0a4d^)
#   FLEET_CHANGED_ONLY=1    measure only the changed fleets below
#
# Then, at each size, a fresh fleet with 1 % of its stacks changed in the cloud, spread over it
# (the pools of fleet-0050, fleet-0150, ... resized): `drift` must name exactly those and exit 3,
# `up --yes` must put them back, and a second `drift` find none. Each is measured as above, and its
# requests held to the fleet scan's list plus 3 a changed stack for drift and 6 for up, its wall
# to 3 and 5 minutes, and its peak memory to 1 GB.
# `make bench-fleet` runs it; it is not part of `make bench` or CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ ! -x .engine/bin/pulumi || ! -x .engine/plugins/pulumi-resource-digitalocean ]]; then
	echo "--- fleet benchmarks skipped: the Pulumi engine or the DigitalOcean plugin is not built (make engine)"
	exit 0
fi
sizes=${FLEET_SIZES:-1000 3000 10000}
old_rev=${FLEET_OLD_REV:-6de0a4d^}
work=$(mktemp -d)
tree=$work/old-tree
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
	if [[ -d $tree ]]; then
		git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/new" "$work/old" "$work/wrap" "$work/home/plugins/resource-digitalocean-v4.57.0"

# The old binary runs on the fleets under 1,000 stacks, and on all with FLEET_OLD_1000=1.
want_old=0
for n in $sizes; do
	if [[ ${FLEET_CHANGED_ONLY:-} != 1 && ($n -lt 1000 || ${FLEET_OLD_1000:-} == 1) ]]; then
		want_old=1
	fi
done
echo "--- building today's binaries"
go build -o "$work/new/" ./cmd/clusterplane ./tools/fakeclouds ./tools/fleetgen
if [[ $want_old == 1 ]]; then
	echo "--- building clusterplane at $old_rev ($(git rev-parse --short "$old_rev"))"
	git worktree add --detach "$tree" "$old_rev" >/dev/null 2>&1
	(cd "$tree" && go build -o "$work/old/" ./cmd/clusterplane)
fi

# The engine and the plugin behind wrappers that count their starts.
cat >"$work/wrap/pulumi" <<EOF
#!/usr/bin/env bash
echo "\$PPID" >>"$work/engines"
exec "$root/.engine/bin/pulumi" "\$@"
EOF
plugin=$work/home/plugins/resource-digitalocean-v4.57.0/pulumi-resource-digitalocean
cat >"$plugin" <<EOF
#!/usr/bin/env bash
echo "\$PPID" >>"$work/plugins"
exec "$root/.engine/plugins/pulumi-resource-digitalocean" "\$@"
EOF
chmod +x "$work/wrap/pulumi" "$plugin"
: >"$work/engines"
: >"$work/plugins"
: >"$work/requests"

# A stack records its provider's API URL: every cloud of this run is served on one port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# start_fakes STATEFILE: the loopback clouds, the DigitalOcean one loaded from (and saved to) STATEFILE.
start_fakes() {
	rm -f "$work/clouds.env"
	"$work/new/fakeclouds" -token bench-token -env "$work/clouds.env" \
		-requests "$work/requests" -digitalocean-port "$port" -digitalocean-state "$1" &
	fakes=$!
	for _ in $(seq 100); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
	[[ -s $work/clouds.env ]] || { echo "fakeclouds did not start"; exit 1; }
	set -a
	# shellcheck disable=SC1091
	source "$work/clouds.env"
	set +a
}
export PATH="$work/wrap:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" \
	PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_IGNORE_AMBIENT_PLUGINS=true PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 DIGITALOCEAN_TOKEN=bench-token

# The one stack deployed through the engine; the cloud is saved settled when fakeclouds stops.
manifest=examples/digitaloceankubernetescluster/minimal.yaml
mkdir -p "$work/base"
export PULUMI_BACKEND_URL="file://$work/base"
start_fakes "$work/base.cloud.json"
"$work/new/clusterplane" up "$manifest" --yes >"$work/base.log" 2>&1 || { tail -30 "$work/base.log"; exit 1; }
stop_fakes

# measure BIN COMMAND FLAGS...: runs it, sets row[] to its figures (or "FAILED (exit N)").
failed=0
measure() {
	local bin=$1 command=$2
	shift 2
	local e0 p0 r0
	e0=$(wc -l <"$work/engines")
	p0=$(wc -l <"$work/plugins")
	r0=$(wc -l <"$work/requests")
	local code=0
	python3 bench/treepeak.py "$work/peak" "$work/time" "$bin" "$command" "$dir" "$@" >"$work/out" 2>&1 || code=$?
	if [[ $code != 0 ]]; then
		echo "--- $bin $command $dir $* exited $code:" >&2
		tail -20 "$work/out" >&2
		failed=1
		cell="FAILED (exit $code)"
		wall=0
		return
	fi
	local t u s
	read -r t u s _ <"$work/time"
	wall=$t
	figures="$t $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $(($(cat "$work/peak") / 1024)) $(($(wc -l <"$work/engines") - e0)) $(($(wc -l <"$work/plugins") - p0)) $(($(wc -l <"$work/requests") - r0))"
	# shellcheck disable=SC2086
	cell=$(printf "%8.2f %8.2f %7d %7d %7d %8d" $figures)
}

# The new binary's figures by "SIZE COMMAND": wall, CPU, peak MB, engines, plugins, requests.
declare -A figures_of

for n in $sizes; do
	[[ ${FLEET_CHANGED_ONLY:-} == 1 ]] && break
	dir=$work/fleet-$n
	state=$work/state-$n
	cp -r "$work/base" "$state"
	start=$(date +%s.%N)
	"$work/new/fleetgen" -loopback digitalocean -state "$state" -cloud "$work/base.cloud.json" -out-cloud "$work/cloud-$n.json" \
		-manifest "$manifest" -out "$dir" -n "$n" >/dev/null
	gen=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	export PULUMI_BACKEND_URL="file://$state"
	start_fakes "$work/cloud-$n.json"
	old_runs=1
	if [[ $n -ge 1000 && ${FLEET_OLD_1000:-} != 1 ]]; then
		old_runs=0
	fi
	echo
	echo "--- a fleet of $n DigitalOcean clusters (tools/fleetgen wrote it in $gen s); old: clusterplane at $old_rev, new: this checkout"
	printf "%-8s | %-53s | %-53s | %s\n" "" "old: wall s, CPU s, peak MB, engines, plugins, requests" \
		"new: wall s, CPU s, peak MB, engines, plugins, requests" "old/new wall"
	for command in status drift preview up; do
		upper=${command^^}
		old_flags=() new_flags=()
		var=OLD_${upper}_FLAGS
		read -r -a old_flags <<<"${!var:-}"
		var=NEW_${upper}_FLAGS
		read -r -a new_flags <<<"${!var:-}"
		if [[ $command == up ]]; then
			old_flags+=(--yes)
			new_flags+=(--yes)
		fi
		# The new binary first: the old one's up records its updates without the build the new
		# one compares, and would leave it nothing unchanged to skip.
		measure "$work/new/clusterplane" "$command" "${new_flags[@]}"
		new_cell=$cell new_wall=$wall
		if [[ $cell != FAILED* ]]; then
			figures_of["$n $command"]=$figures
		fi
		if [[ $old_runs == 1 ]]; then
			measure "$work/old/clusterplane" "$command" "${old_flags[@]}"
			old_cell=$cell old_wall=$wall
		else
			old_cell="not run (FLEET_OLD_1000=1)" old_wall=0
		fi
		cell=$new_cell wall=$new_wall
		ratio=$(awk -v o="$old_wall" -v n="$wall" 'BEGIN { if (o > 0 && n > 0) printf "%.1fx", o / n; else print "-" }')
		printf "%-8s | %-53s | %-53s | %s\n" "$command" "$old_cell" "$cell" "$ratio"
	done
	stop_fakes
done

# Each figure at the largest size over the same at the smallest: ten times the stacks should cost
# ten times the time, not a hundred.
small=${sizes%% *}
large=${sizes##* }
if [[ $large != "$small" && ${FLEET_CHANGED_ONLY:-} != 1 ]]; then
	limit=$(awk -v r="${FLEET_MAX_RATIO:-15}" -v a="$small" -v b="$large" 'BEGIN { printf "%.1f", r * (b / a) / 10 }')
	echo
	echo "--- $large stacks over $small: each figure's ratio (wall and CPU must stay within $limit)"
	printf "%-8s | %7s %7s %7s %7s %7s %8s\n" "" "wall" "CPU" "peak MB" "engines" "plugins" "requests"
	for command in status drift preview up; do
		a=${figures_of["$small $command"]:-} b=${figures_of["$large $command"]:-}
		if [[ -z $a || -z $b ]]; then
			printf "%-8s | not measured at both sizes\n" "$command"
			failed=1
			continue
		fi
		line=$(awk -v a="$a" -v b="$b" -v limit="$limit" 'BEGIN {
			n = split(a, x, " "); split(b, y, " "); out = ""; over = 0
			for (i = 1; i <= n; i++) {
				r = x[i] > 0 ? sprintf("%7.1f", y[i] / x[i]) : (y[i] > 0 ? sprintf("%7s", "0->" y[i]) : sprintf("%7s", "-"))
				out = out " " r
				if (i <= 2 && x[i] > 0 && y[i] / x[i] > limit) over = 1
			}
			print over out }')
		printf "%-8s |%s\n" "$command" "${line#* }"
		if [[ ${line%% *} == 1 ]]; then
			echo "--- $command: wall or CPU grew more than $limit times from $small to $large stacks" >&2
			failed=1
		fi
	done
fi

# fresh NAME N: a fresh fleet of N stacks, its manifests in $dir and its backend in $state, its
# cloud served by the loopback clouds started here.
fresh() {
	dir=$work/$1-$2
	state=$work/$1-state-$2
	cp -r "$work/base" "$state"
	"$work/new/fleetgen" -loopback digitalocean -state "$state" -cloud "$work/base.cloud.json" -out-cloud "$work/$1-cloud-$2.json" \
		-manifest "$manifest" -out "$dir" -n "$2" >/dev/null
	export PULUMI_BACKEND_URL="file://$state"
	start_fakes "$work/$1-cloud-$2.json"
}
# ids NAME: the cluster's and its default pool's ids, from the stack NAME's checkpoint in $state.
ids() { python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))["checkpoint"]["latest"]["resources"][0]["outputs"]
print(o["cluster_id"], o["default_node_pool_id"])' "$state/.pulumi/stacks/digitaloceankubernetescluster/$1.json"; }
# api METHOD PATH [BODY]: one request to the loopback DigitalOcean, as a change made in the console.
api() { curl -fsS -o /dev/null -X "$1" -H "Authorization: Bearer bench-token" -H "Content-Type: application/json" "$DIGITALOCEAN_API_URL$2" ${3:+-d "$3"}; }

if [[ ${FLEET_CHANGED_ONLY:-} != 1 ]]; then
	# Three drifts made in the cloud of a fresh fleet of the largest size (a pool resized, a tag
	# added, a cluster deleted): the scan must find those three, and the provider's refresh must run
	# for them alone (two engines and a plugin each), every other stack left to the scan.
	n=${sizes##* }
	fresh drift "$n"
	read -r c1 p1 < <(ids fleet-0001)
	read -r c2 _ < <(ids fleet-0002)
	read -r c3 _ < <(ids fleet-0003)
	api PUT "/v2/kubernetes/clusters/$c1/node_pools/$p1" '{"name":"default","count":5}'
	api PUT "/v2/kubernetes/clusters/$c2" '{"name":"fleet-0002","tags":["resource-kind:DigitalOceanKubernetesCluster","resource-name:fleet-0002","sneaky"]}'
	api DELETE "/v2/kubernetes/clusters/$c3"
	e0=$(wc -l <"$work/engines") p0=$(wc -l <"$work/plugins") r0=$(wc -l <"$work/requests")
	code=0
	python3 bench/treepeak.py "$work/peak" "$work/time" "$work/new/clusterplane" drift "$dir" -o json >"$work/drift.json" 2>"$work/drift.err" || code=$?
	# GNU time writes "Command exited with non-zero status 3" before the figures.
	read -r t u s _ < <(tail -1 "$work/time")
	drifted=$(python3 -c 'import json, sys
print(" ".join(sorted(s["stack"].split("/")[1] for s in json.load(open(sys.argv[1]))["stacks"] if s["outcome"] == "drifted")))' "$work/drift.json")
	echo
	echo "--- drift of a fresh fleet of $n with 3 drifts made in the cloud (fleet-0001 resized, fleet-0002 tagged, fleet-0003 deleted)"
	printf "exit %d, %.2f s wall, %.2f s CPU, %d MB peak; engines %d, plugins %d, cloud requests %d; drifted: %s\n" "$code" "$t" \
		"$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" $(($(cat "$work/peak") / 1024)) $(($(wc -l <"$work/engines") - e0)) \
		$(($(wc -l <"$work/plugins") - p0)) $(($(wc -l <"$work/requests") - r0)) "$drifted"
	grep '^fleet scan' "$work/drift.err" || true
	if [[ $code != 3 || $drifted != "fleet-0001 fleet-0002 fleet-0003" ]]; then
		echo "--- want exit 3 and exactly fleet-0001, fleet-0002 and fleet-0003 drifted" >&2
		failed=1
	fi
	stop_fakes
fi

# A fresh fleet of each size with 1 % of its stacks changed in the cloud, spread over the fleet.
for n in $sizes; do
	fresh changed "$n"
	changed=()
	for ((i = 50; i <= n; i += 100)); do changed+=("$(printf "fleet-%04d" "$i")"); done
	k=${#changed[@]}
	for name in "${changed[@]}"; do
		read -r c p < <(ids "$name")
		api PUT "/v2/kubernetes/clusters/$c/node_pools/$p" '{"name":"default","count":5}'
	done
	# The fleet scan's list: the account's clusters, 200 a page, and the page that ends it.
	scan=$(((n + 199) / 200 + 1))
	echo
	echo "--- a fresh fleet of $n with $k pools resized in the cloud (fleet-0050, fleet-0150, ...): wall s, CPU s, peak MB, engines, plugins, requests"
	for step in drift up again; do
		command=$step want_exit=0 per=6 most_wall=300
		case $step in
		drift) want_exit=3 per=3 most_wall=180 ;;
		again) command=drift per=0 most_wall=180 ;;
		esac
		flags=()
		[[ $command == up ]] && flags=(--yes)
		e0=$(wc -l <"$work/engines") p0=$(wc -l <"$work/plugins") r0=$(wc -l <"$work/requests")
		code=0
		python3 bench/treepeak.py "$work/peak" "$work/time" "$work/new/clusterplane" "$command" "$dir" "${flags[@]}" -o json \
			>"$work/changed.json" 2>"$work/changed.err" || code=$?
		read -r t u s _ < <(tail -1 "$work/time")
		peak=$(($(cat "$work/peak") / 1024)) requests=$(($(wc -l <"$work/requests") - r0))
		printf "%-8s exit %d %8.2f %8.2f %7d %7d %7d %8d\n" "$step" "$code" "$t" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
			"$peak" $(($(wc -l <"$work/engines") - e0)) $(($(wc -l <"$work/plugins") - p0)) "$requests"
		grep -h 'paces its requests' "$work/changed.err" || true
		if [[ $code != "$want_exit" ]]; then
			echo "--- $step: exit $code, want $want_exit" >&2
			tail -20 "$work/changed.err" >&2
			failed=1
		fi
		if [[ $step == drift ]]; then
			drifted=$(python3 -c 'import json, sys
print(" ".join(sorted(s["stack"].split("/")[1] for s in json.load(open(sys.argv[1]))["stacks"] if s["outcome"] == "drifted")))' "$work/changed.json")
			if [[ $drifted != "${changed[*]}" ]]; then
				echo "--- drift named: $drifted; want exactly the $k resized" >&2
				failed=1
			fi
		fi
		if ((requests > scan + per * k)); then
			echo "--- $step: $requests requests, want at most $((scan + per * k)) (the scan's $scan and $per a changed stack)" >&2
			failed=1
		fi
		if awk -v t="$t" -v m="$most_wall" 'BEGIN { exit !(t > m) }'; then
			echo "--- $step: $t s, want at most $most_wall" >&2
			failed=1
		fi
		if ((peak >= 1024)); then
			echo "--- $step: peak $peak MB, want under 1 GB" >&2
			failed=1
		fi
	done
	stop_fakes
done
exit "$failed"
