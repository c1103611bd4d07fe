#!/usr/bin/env bash
# Builds the real Pulumi engine from Go modules into .engine/bin at the repository root:
#   pulumi                  the CLI and engine     (tools/engine,        pkg/v3 and sdk/v3 v3.259.0)
#   pulumi-language-yaml    the YAML language host (tools/engine,        pulumi-yaml v1.38.1)
#   pulumi-language-go      the Go language host   (tools/engine/golang, sdk/v3 v3.66.0)
#   pulumi-language-nodejs  the Node.js host       (tools/engine/nodejs, sdk/v3 v3.68.0)
# The two old hosts live inside sdk/v3 releases that conflict with sdk/v3 v3.259.0, hence their own
# modules. A binary built from its module's go.mod and go.sum as they are now is kept (a digest of
# both, beside it), so only the first run (or one after a version change) compiles; the CLI alone
# takes about 5 minutes cold on 2 cores.
# Nothing but Go modules is downloaded. `make engine` runs this script, and then providers.sh, which
# builds the real DigitalOcean and Civo provider plugins into .engine/plugins.
set -euo pipefail
engine=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$engine/../.." && pwd)
bin=$root/.engine/bin
# A go.work of the developer's would put these modules in one build list; they must stay apart.
export GOWORK=off

# The plugins first, in a second: without them the engine built below is of no use. Checked
# before any folder is made, so that a refusal leaves no empty .engine behind.
bash "$engine/providers.sh" --check
mkdir -p "$bin"

# version DIR MODULE: the version of MODULE that the module in DIR requires.
version() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# build NAME DIR PACKAGE VERSION_VARIABLE VERSION: go build PACKAGE in the module DIR into $bin/NAME,
# stamping VERSION_VARIABLE with VERSION, unless $bin/NAME was built from DIR/go.mod and DIR/go.sum
# as they are now: its stamp, .NAME.digest, holds their digest. Content, not modification times: a
# fresh checkout, or a cache of .engine restored in CI, makes go.mod look newer than every binary.
build() {
	local name=$1 dir=$2 pkg=$3 var=$4 ver=$5 out=$bin/$1 digest
	digest=$(cat "$dir/go.mod" "$dir/go.sum" <(echo "$pkg $var $ver") | sha256sum | cut -d' ' -f1)
	if [[ -x $out && -f $bin/.$name.digest && $(cat "$bin/.$name.digest") == "$digest" ]]; then
		echo "$name: up to date"
		return
	fi
	echo "$name: building $pkg $ver"
	local start=$SECONDS
	(cd "$dir" && go build -ldflags "-X $var=$ver" -o "$out.tmp" "$pkg")
	mv "$out.tmp" "$out"
	echo "$digest" >"$bin/.$name.digest"
	echo "$name: built in $((SECONDS - start)) s"
}

sdkver=github.com/pulumi/pulumi/sdk/v3/go/common/version.Version
build pulumi "$engine" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
	"$sdkver" "$(version "$engine" github.com/pulumi/pulumi/pkg/v3)"
build pulumi-language-yaml "$engine" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml \
	github.com/pulumi/pulumi-yaml/pkg/version.Version "$(version "$engine" github.com/pulumi/pulumi-yaml)"
build pulumi-language-go "$engine/golang" github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go \
	"$sdkver" "$(version "$engine/golang" github.com/pulumi/pulumi/sdk/v3)"
build pulumi-language-nodejs "$engine/nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
	"$sdkver" "$(version "$engine/nodejs" github.com/pulumi/pulumi/sdk/v3)"

echo "--- in ${bin#"$root"/}:"
"$bin/pulumi" version
for host in yaml go nodejs; do
	# The module (and version) each host was built from, as the binary records it.
	go version -m "$bin/pulumi-language-$host" | awk -v n="pulumi-language-$host" '$1 == "mod" { print n, $2, $3 }'
done
du -sh "$bin"

bash "$engine/providers.sh"
