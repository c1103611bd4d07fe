#!/usr/bin/env bash
# Builds the real DigitalOcean and Civo provider plugins into .engine/plugins at the repository root:
#   pulumi-resource-digitalocean 4.57.0  (pulumi-digitalocean v4.57.0, terraform-provider-digitalocean v2.75.0)
#   pulumi-resource-civo         2.4.8   (pulumi-civo v2.4.8, terraform-provider-civo v1.1.4)
# from the pinned sources in ../shared/providers-src (the Go module proxy refuses the provider
# modules and both Terraform providers; every other module comes from the proxy at the version their
# go.mod pins). The sources are unpacked into .engine/src, which git ignores: they are build
# inputs, never part of the project. A plugin built from the same archives by the same script (a
# digest of both, kept beside it) is kept, so only the first run compiles (about 3.5 and 2.3
# minutes cold on 2 cores, 16 s for both with a warm build cache).
#
# Without ../shared (a user's clone) the plugins come the way a user gets them, `pulumi plugin
# install`, into .engine/plugins; when neither way gives them it fails, naming both.
set -euo pipefail
engine=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$engine/../.." && pwd)
srcs=${CLUSTERPLANE_PROVIDERS_SRC:-$root/../shared/providers-src}
out=$root/.engine/plugins
work=$root/.engine/src
export GOWORK=off GOFLAGS=-mod=mod

# install NAME VERSION: pulumi plugin install the provider into a Pulumi home of its own (the
# user's is left alone) and copy the plugin into $out; fails when the download does.
install() {
	local name=$1 ver=$2 home pulumi=$root/.engine/bin/pulumi
	[[ -x $pulumi ]] || pulumi=pulumi
	home=$(mktemp -d)
	if PULUMI_HOME=$home "$pulumi" plugin install resource "$name" "$ver" --non-interactive; then
		cp "$home/plugins/resource-$name-v$ver/pulumi-resource-$name" "$out/pulumi-resource-$name.tmp"
		mv "$out/pulumi-resource-$name.tmp" "$out/pulumi-resource-$name"
		rm -rf "$home"
		return 0
	fi
	rm -rf "$home"
	return 1
}

# installed NAME VERSION: copy the plugin from the user's own Pulumi home, where an earlier
# `pulumi plugin install` put it; fails when it is not there.
installed() {
	local name=$1 ver=$2 own=${PULUMI_HOME:-$HOME/.pulumi}/plugins/resource-$1-v$2/pulumi-resource-$1
	[[ -x $own ]] || return 1
	cp "$own" "$out/pulumi-resource-$name.tmp"
	mv "$out/pulumi-resource-$name.tmp" "$out/pulumi-resource-$name"
	echo "pulumi-resource-$name: copied from $own"
}

# fail MISSING...: the refusal naming every way to get the plugins.
fail() {
	echo "providers: could not get $*. Three ways give the plugins:" \
		"1) \`pulumi plugin install resource digitalocean 4.57.0\` and \`pulumi plugin install resource civo 2.4.8\`," \
		"which download them from get.pulumi.com (this machine could not reach it);" \
		"2) the plugins already in your Pulumi home, as an earlier \`pulumi plugin install\` (here or on another" \
		"machine, then copied) lays them out: ${PULUMI_HOME:-$HOME/.pulumi}/plugins/resource-digitalocean-v4.57.0/pulumi-resource-digitalocean" \
		"and .../resource-civo-v2.4.8/pulumi-resource-civo;" \
		"3) building them from the pinned sources in ../shared/providers-src (or the folder" \
		"CLUSTERPLANE_PROVIDERS_SRC names), which this clone does not have" >&2
	exit 1
}

plugins=("digitalocean 4.57.0" "civo 2.4.8")

# --check, run by build.sh before it compiles the engine for minutes: without the sources, a
# plugin that is neither kept, nor in the user's Pulumi home, nor downloadable (get.pulumi.com
# unreachable) fails now rather than after the build.
if [[ ${1:-} == --check ]]; then
	[[ -d $srcs ]] && exit 0
	missing=()
	for plugin in "${plugins[@]}"; do
		read -r name ver <<<"$plugin"
		[[ -x $out/pulumi-resource-$name || -x ${PULUMI_HOME:-$HOME/.pulumi}/plugins/resource-$name-v$ver/pulumi-resource-$name ]] ||
			missing+=("pulumi-resource-$name $ver")
	done
	((${#missing[@]} == 0)) && exit 0
	# Without curl the download is left to pulumi plugin install, after the build.
	if command -v curl >/dev/null && ! curl -sS --max-time 15 -o /dev/null https://get.pulumi.com/ 2>/dev/null; then
		fail "${missing[*]}"
	fi
	exit 0
fi

mkdir -p "$out"
if [[ ! -d $srcs ]]; then
	echo "providers: $srcs is absent (a clone without ../shared): the plugins come from your Pulumi home or pulumi plugin install"
	missing=()
	for plugin in "${plugins[@]}"; do
		read -r name ver <<<"$plugin"
		if [[ -x $out/pulumi-resource-$name ]]; then
			echo "pulumi-resource-$name: kept (built or installed before)"
		elif ! installed "$name" "$ver" && ! install "$name" "$ver"; then
			missing+=("pulumi-resource-$name $ver")
		fi
	done
	((${#missing[@]} == 0)) || fail "${missing[*]}"
	ls -l "$out"
	exit 0
fi

# unpack DIR ARCHIVE...: DIR afresh from the archives, each of which holds one folder named after
# its repository.
unpack() {
	local dir=$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	for a in "$@"; do tar -xzf "$a" -C "$dir"; done
}

# digest ARCHIVE...: the digest of this script and the archives a plugin is built from. Content,
# not modification times: a fresh checkout, or a cache restored in CI, makes every file look new.
digest() { cat "${BASH_SOURCE[0]}" "$@" | sha256sum | cut -d' ' -f1; }

# fresh NAME ARCHIVE...: whether $out/NAME was built from these archives by this script.
fresh() {
	local name=$1
	shift
	[[ -x $out/$name && -f $out/.$name.digest && $(cat "$out/.$name.digest") == "$(digest "$@")" ]]
}

# plugin NAME VERSION MODULE_DIR VERSION_VARIABLE: generate the embedded schema in MODULE_DIR's
# cmd/NAME and build it into $out/NAME.
plugin() {
	local name=$1 ver=$2 dir=$3 var=$4 start=$SECONDS
	(cd "$dir/cmd/$name" && VERSION=$ver go run generate.go)
	(cd "$dir" && go build -ldflags "-s -w -X $var=$ver" -o "$out/$name.tmp" "./cmd/$name")
	mv "$out/$name.tmp" "$out/$name"
	echo "$name: built in $((SECONDS - start)) s"
}

do_archives=("$srcs/pulumi-digitalocean-v4.57.0.tar.gz" "$srcs/terraform-provider-digitalocean-v2.75.0.tar.gz")
if fresh pulumi-resource-digitalocean "${do_archives[@]}"; then
	echo "pulumi-resource-digitalocean: up to date"
else
	echo "pulumi-resource-digitalocean: building 4.57.0"
	unpack "$work/digitalocean" "${do_archives[@]}"
	# pulumi-digitalocean's go.mod replaces the Terraform provider with ../upstream, and godo with the
	# copy vendored there; its patch adds that copy's go.mod. The ceiling keeps git from taking
	# this repository for the patch's: inside a work tree, git apply skips paths outside the
	# current folder without a word.
	mv "$work/digitalocean/terraform-provider-digitalocean" "$work/digitalocean/pulumi-digitalocean/upstream"
	for p in "$work/digitalocean/pulumi-digitalocean/patches/"*.patch; do
		(cd "$work/digitalocean/pulumi-digitalocean/upstream" && GIT_CEILING_DIRECTORIES=$work git apply "$p")
	done
	[[ -f $work/digitalocean/pulumi-digitalocean/upstream/vendor/github.com/digitalocean/godo/go.mod ]] ||
		{ echo "providers: the godo patch did not apply"; exit 1; }
	plugin pulumi-resource-digitalocean 4.57.0 "$work/digitalocean/pulumi-digitalocean/provider" \
		github.com/pulumi/pulumi-digitalocean/provider/v4/pkg/version.Version
	digest "${do_archives[@]}" >"$out/.pulumi-resource-digitalocean.digest"
fi

civo_archives=("$srcs/pulumi-civo-v2.4.8.tar.gz" "$srcs/terraform-provider-civo-v1.1.4.tar.gz")
if fresh pulumi-resource-civo "${civo_archives[@]}"; then
	echo "pulumi-resource-civo: up to date"
else
	echo "pulumi-resource-civo: building 2.4.8"
	unpack "$work/civo" "${civo_archives[@]}"
	mv "$work/civo/terraform-provider-civo" "$work/civo/pulumi-civo/upstream"
	(cd "$work/civo/pulumi-civo/provider" && go mod edit -replace github.com/civo/terraform-provider-civo=../upstream)
	plugin pulumi-resource-civo 2.4.8 "$work/civo/pulumi-civo/provider" \
		github.com/pulumi/pulumi-civo/provider/v2/pkg/version.Version
	digest "${civo_archives[@]}" >"$out/.pulumi-resource-civo.digest"
fi
rm -rf "$work"
ls -l "$out"
