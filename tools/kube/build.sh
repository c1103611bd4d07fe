#!/usr/bin/env bash
# Builds a real Kubernetes control plane for the operator e2e test into .engine/kube at the
# repository root:
#   kube-apiserver  k8s.io/kubernetes v1.34.9 (cmd/kube-apiserver)
#   kube-controller-manager, kube-scheduler  the same module and version (the drain e2e tests need
#                   Deployments, ReplicaSets and a scheduler to move pods between pools)
#   etcd            go.etcd.io/etcd/server/v3 v3.6.4 (what kubernetes v1.34.9 asks for)
#   kwok            sigs.k8s.io/kwok v0.7.0 (simulated kubelets), in its own module tools/kube/kwok
#                   because it wants client-go v0.33 and the others v0.34
#   kubectl, helm   k8s.io/kubernetes v1.34.9 and helm.sh/helm/v3 v3.19.5, in the module
#                   tools/kube/cli: the commands docs/karpenter.md and docs/deploying.md type,
#                   which the e2e tests run as written. Built here, once, rather than in each e2e
#                   run: together they compile for minutes and fill gigabytes of build cache.
# They come from these modules, which keep the main go.mod free of k8s.io/kubernetes. A binary
# newer than its go.mod and go.sum is kept, so only the first run compiles. Cold figures, in one
# run with a fresh GOCACHE and the modules already downloaded, on two cores shared with one light
# job, 2026-11-23: etcd 65 s, kube-apiserver 264 s, kube-controller-manager 87 s and
# kube-scheduler 8 s (both reuse most of the API server's packages), kwok about 105 s: 529 s in all.
# Facts: ../shared/design/kubernetes.md.
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

# build NAME PACKAGE [MODULE-DIR]: go build PACKAGE into $bin/NAME, unless $bin/NAME was built
# from the module's go.mod and go.sum as they are now, with these flags: its stamp, .NAME.digest,
# holds their digest. Content, not modification times: a fresh checkout, or a cache of .engine
# restored in CI, makes go.mod look newer than every binary, and each would be built again.
build() {
	local name=$1 pkg=$2 dir=${3:-$here} out=$bin/$1 digest
	digest=$(cat "$dir/go.mod" "$dir/go.sum" <(echo "$pkg $ldflags") | sha256sum | cut -d' ' -f1)
	if [[ -x $out && -f $bin/.$name.digest && $(cat "$bin/.$name.digest") == "$digest" ]]; then
		echo "$name: up to date"
		return
	fi
	echo "$name: building $pkg"
	local start=$SECONDS
	(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
	mv "$out.tmp" "$out"
	echo "$digest" >"$bin/.$name.digest"
	echo "$name: built in $((SECONDS - start)) s"
}

build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kwok sigs.k8s.io/kwok/cmd/kwok "$here/kwok"
build kubectl k8s.io/kubernetes/cmd/kubectl "$here/cli"
build helm helm.sh/helm/v3/cmd/helm "$here/cli"
"$bin/kube-apiserver" --version
"$bin/etcd" --version | sed -n 1p
"$bin/kube-controller-manager" --version
"$bin/kube-scheduler" --version
"$bin/kwok" --version
"$bin/kubectl" version --client | sed -n 1p
"$bin/helm" version --short
