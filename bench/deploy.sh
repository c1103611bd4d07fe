#!/usr/bin/env bash
# Deploying from clusterplane, measured side by side in one run on the real engine and the real
# DigitalOcean provider plugin (`make engine` builds both) against the loopback DigitalOcean API
# of the tests (tools/fakeclouds):
#   - an unchanged stack: `clusterplane preview` (the module inline, through the Automation API)
#     against `pulumi preview` in a program folder (the Go language host builds the program first),
#     and the DigitalOcean plugin's own share of each: its CPU time and peak memory;
#   - a fleet of 20 clusters: preview, status and drift with --parallel 1 against --parallel 4, and
#     an unchanged up with its default read of the cloud against --refresh=false;
#   - the same fleet's status and preview on a PostgreSQL backend against the file backend.
# `make bench` runs it after bench/build.sh; bench/README.md quotes its figures. Without the engine or
# the plugin it says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ ! -x .engine/bin/pulumi || ! -x .engine/plugins/pulumi-resource-digitalocean ]]; then
	echo "--- deploy benchmarks skipped: the Pulumi engine or the DigitalOcean plugin is not built (make engine)"
	exit 0
fi
runs=${RUNS:-3}
work=$(mktemp -d)
fakes=
cleanup() {
	[[ -n $fakes ]] && kill "$fakes" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin" "$work/home/plugins/resource-digitalocean-v4.57.0" "$work/state" "$work/fleet" "$work/program"
go build -o "$work/bin/" ./cmd/clusterplane ./tools/fakeclouds

# The plugin, installed as `pulumi plugin install` would, behind a wrapper that records what each
# of its runs cost: wall seconds, CPU seconds, peak kilobytes.
plugin=$work/home/plugins/resource-digitalocean-v4.57.0/pulumi-resource-digitalocean
cat >"$plugin" <<EOF
#!/usr/bin/env bash
exec /usr/bin/time -a -o "$work/plugin.times" -f "%e %U %S %M" "$root/.engine/plugins/pulumi-resource-digitalocean" "\$@"
EOF
chmod +x "$plugin"

"$work/bin/fakeclouds" -token bench-token -env "$work/clouds.env" &
fakes=$!
for _ in $(seq 50); do [[ -s $work/clouds.env ]] && break; sleep 0.1; done
set -a
# shellcheck disable=SC1091
source "$work/clouds.env"
set +a
export PATH="$work/bin:$root/.engine/bin:$PATH" PULUMI_HOME="$work/home" PULUMI_BACKEND_URL="file://$work/state" \
	PULUMI_CONFIG_PASSPHRASE=bench PULUMI_SKIP_UPDATE_CHECK=1 PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
	PULUMI_IGNORE_AMBIENT_PLUGINS=true PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1 DIGITALOCEAN_TOKEN=bench-token

# measure LABEL CMD...: the median wall time and peak memory of RUNS runs, and the plugin's median
# CPU time and peak memory over them.
measure() {
	local label=$1
	shift
	local times=() peaks=()
	: >"$work/plugin.times"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
			code=$?
			[[ $code == 3 ]] || { cat "$work/err"; exit 1; }
		}
		read -r t m <"$work/time"
		times+=("$t")
		peaks+=("$m")
	done
	local t m
	t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
	m=$(printf '%s\n' "${peaks[@]}" | sort -n | tail -1)
	printf "%-48s %6.2f s  %5d MB" "$label" "$t" $((m / 1024))
	if [[ -s $work/plugin.times ]]; then
		# Per run: the plugin processes' CPU seconds summed, and the largest one's memory.
		# GNU time writes "Command terminated by signal 9" before a killed run's figures: skip it.
		awk -v runs="$runs" '$1 ~ /^[0-9.]+$/ { cpu += $2 + $3; if ($4 + 0 > mem) mem = $4 + 0 } END {
			printf "   plugin: %.2f s CPU a run, %d MB\n", cpu / runs, mem / 1024 }' "$work/plugin.times"
	else
		echo
	fi
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
# --refresh=false: pulumi preview reads no cloud either.
measure "clusterplane preview --refresh=false" clusterplane preview "$manifest" --refresh=false
inline=$(cat "$work/last")
measure "pulumi preview in the program folder" env -C "$work/program" STACK_INPUT_FILE="$root/$manifest" pulumi preview
folder=$(cat "$work/last")
awk -v a="$folder" -v b="$inline" 'BEGIN { printf "%-48s %6.1fx\n", "clusterplane preview is faster by", a / b }'

echo "--- a fleet of 20 DigitalOcean clusters, median of $runs"
for i in $(seq -w 1 20); do
	sed "s/name: dev-fra1/name: fleet-$i/; s/clusterName: dev-fra1/clusterName: fleet-$i/" "$manifest" >"$work/fleet/c$i.yaml"
done
clusterplane up "$work/fleet" --yes --parallel 4 >/dev/null 2>&1
for command in preview status drift; do
	measure "clusterplane $command of 20, --parallel 1" clusterplane "$command" "$work/fleet" --parallel 1
	serial=$(cat "$work/last")
	measure "clusterplane $command of 20, --parallel 4" clusterplane "$command" "$work/fleet" --parallel 4
	parallel=$(cat "$work/last")
	awk -v s="$serial" -v p="$parallel" -v c="$command" 'BEGIN { printf "%-48s %6.2f\n", c " parallel / serial", p / s }'
done

# What up's default read of the cloud adds to an unchanged fleet's up: --refresh=false trusts the
# stacks' state, as every up did before; the default reads each resource first.
measure "clusterplane up of 20 unchanged, --refresh=false" clusterplane up "$work/fleet" --yes --parallel 4 --refresh=false
fast=$(cat "$work/last")
measure "clusterplane up of 20 unchanged, reading the cloud" clusterplane up "$work/fleet" --yes --parallel 4
read=$(cat "$work/last")
awk -v f="$fast" -v r="$read" 'BEGIN { printf "%-48s %6.2f\n", "up reading the cloud / --refresh=false", r / f }'

# The same fleet on a PostgreSQL backend against the file backend: a throwaway server (Debian's
# postgresql; initdb in the work folder, loopback only), skipped when it is not installed.
pgbin=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -1 || true)
if [[ -z $pgbin ]]; then
	echo "--- PostgreSQL backend skipped: Debian's postgresql is not installed"
	exit 0
fi
as=()
if [[ $(id -u) == 0 ]]; then
	as=(runuser -u postgres --)
fi
pgdir=$(mktemp -d)
chmod 755 "$pgdir"
[[ ${#as[@]} == 0 ]] || chown postgres "$pgdir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U bench --no-sync >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w -o "-c listen_addresses=127.0.0.1 -p $port -k $pgdir" start >/dev/null
stop_pg() {
	"${as[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$pgdir"
	cleanup
}
trap stop_pg EXIT
"${as[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U bench fleet
file_backend=$PULUMI_BACKEND_URL
export PULUMI_BACKEND_URL="postgres://bench@127.0.0.1:$port/fleet?sslmode=disable"
# Its own 20 clusters: the cloud refuses a second cluster of a name.
mkdir -p "$work/pgfleet"
for i in $(seq -w 1 20); do
	sed "s/name: dev-fra1/name: pg-$i/; s/clusterName: dev-fra1/clusterName: pg-$i/" "$manifest" >"$work/pgfleet/c$i.yaml"
done
clusterplane up "$work/pgfleet" --yes --parallel 4 >"$work/pgup.log" 2>&1 || { tail -20 "$work/pgup.log"; exit 1; }
echo "--- the fleet of 20 on PostgreSQL against the file backend, --parallel 4, median of $runs"
for command in status preview; do
	PULUMI_BACKEND_URL=$file_backend measure "clusterplane $command of 20, file backend" clusterplane "$command" "$work/fleet" --parallel 4
	file=$(cat "$work/last")
	measure "clusterplane $command of 20, PostgreSQL" clusterplane "$command" "$work/pgfleet" --parallel 4
	pg=$(cat "$work/last")
	awk -v f="$file" -v p="$pg" -v c="$command" 'BEGIN { printf "%-48s %6.2f\n", c " PostgreSQL / file", p / f }'
done
