#!/usr/bin/env bash
# Builds a real Kubernetes control plane for the operator e2e test into .engine/kube at the
# repository root:
#   kube-apiserver  k8s.io/kubernetes v1.34.9 (cmd/kube-apiserver)
#   etcd            go.etcd.io/etcd/server/v3 v3.6.4 (what kubernetes v1.34.9 asks for)
# Both come from this module (tools/kube), which keeps the main go.mod free of k8s.io. A binary
# newer than go.mod and go.sum is kept, so only the first run compiles (about 14 minutes on two
# busy cores for the API server; etcd 15 s). Facts: ../shared/design/kubernetes.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/.engine/kube
export GOWORK=off
# The checksum database answers 404 for these two published staging modules.
export GONOSUMDB=k8s.io/kube-proxy,k8s.io/externaljwt

mkdir -p "$bin"

# Without a stamped version the server reports v0.0.0 and clients cannot parse it.
kubever=v1.34.9
ldflags="-s -w \
 -X k8s.io/component-base/version.gitVersion=$kubever \
 -X k8s.io/component-base/version.gitMajor=1 \
 -X k8s.io/component-base/version.gitMinor=34 \
 -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/client-go/pkg/version.gitVersion=$kubever"

build() {
	local name=$1 pkg=$2 out=$bin/$1
	if [[ -x $out && $out -nt $here/go.mod && $out -nt $here/go.sum ]]; then
		echo "$name: up to date"
		return
	fi
	echo "$name: building $pkg"
	local start=$SECONDS
	(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
	mv "$out.tmp" "$out"
	echo "$name: built in $((SECONDS - start)) s"
}

build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
"$bin/kube-apiserver" --version
"$bin/etcd" --version | head -1
