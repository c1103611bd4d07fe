//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

// serve's image, run by a real container runtime (podman with runc) from the layout `make images`
// wrote: replicas of it on one PostgreSQL database, the Pulumi backend in the same server, deploy a
// cluster through the engine and plugins the image carries; the one creating a pool is sent
// SIGTERM while the cloud holds the create, exits 0 and hands its job back, and a second
// container finishes it, the cloud holding the pool once. The loopback clouds and the database
// run on the host; the containers share its network, as a pod's containers share theirs.
//
// Promise: image-runs-under-a-container-runtime
func TestServesImageUnderARealContainerRuntimeDeploysAndHandsAJobStoppedMidCreateToAnother(t *testing.T) {
	t.Parallel()
	layout, tag := imageLayout(t, "clusterplane")
	e := newEnv(t)
	pg := pgtest.Start(t)
	db := pg.Database("serve")
	var prefix string
	e.serveWith, prefix = podmanRunner(t, e, layout, tag, pg.Database("state"))
	h := stopMidCreateIn(e, db, "image-fra1", false)
	// The API's replica and the one that took the job up still run, each in its container; the
	// stopped one's container is gone with it.
	out, err := exec.Command("podman", "ps", "-q", "--filter", "name="+prefix).Output()
	if running := strings.Fields(string(out)); err != nil || len(running) != 2 {
		t.Errorf("podman runs %d containers of the test's (%v), want 2: the API's and the one that took the job up", len(running), err)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(h.front.url + path)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s of the image's replica: %v %v", path, resp, err)
			continue
		}
		resp.Body.Close()
	}
}

// The Karpenter provider's image, run by podman with runc from its layout on the host's network,
// with the control plane's kubeconfig mounted read-only: pending pods get nodes of the loopback
// DigitalOcean's pools, each NodeClaim naming its node, as the provider's own build gives them.
//
// Promise: image-runs-under-a-container-runtime
func TestTheKarpenterImageUnderARealContainerRuntimeProvisionsNodeClaims(t *testing.T) {
	t.Parallel()
	layout, tag := imageLayout(t, "karpenter-clusterplane")
	k := newKubeCluster(t)
	c := doForKarpenter(t, k)
	var prefix string
	c.operator, prefix = podmanOperator(t, k.dir, layout, tag)
	karpenterOn(t, k, c)
	cs := k.clientset()
	pendingPods(t, cs, "shop", 3, "1", "1Gi")
	waitFor(t, 5*time.Minute, "3 pods running", func() bool { return runningPods(t, cs, "shop") == 3 })
	claims := k.nodeClaims()
	waitFor(t, time.Minute, "the pools holding exactly the NodeClaims' nodes", func() bool {
		_, ids := c.karpenterPools()
		return len(claims) > 0 && slices.Equal(ids, claimedProviderIDs(k.nodeClaims()))
	})
	out, err := exec.Command("podman", "ps", "-q", "--filter", "name="+prefix).Output()
	if running := strings.Fields(string(out)); err != nil || len(running) != 1 {
		t.Errorf("podman runs %d containers of the test's (%v), want the operator's 1", len(running), err)
	}
}

// podmanOperator writes a script that runs the Karpenter provider's image as startOperator runs
// its binary: with the environment startOperator gives (the image's own PATH, HOME and /tmp
// kept), and the kubeconfig it names mounted read-only, a copy the image's user may read. The
// container is removed when the test ends.
func podmanOperator(t *testing.T, dir, layout, tag string) (script, prefix string) {
	t.Helper()
	prefix = fmt.Sprintf("clusterplane-e2e-%d-%d", os.Getpid(), containers.Add(1))
	script = filepath.Join(dir, "podman-operator.sh")
	text := "#!/bin/sh\nset -e\ncp \"$KUBECONFIG\" \"$KUBECONFIG.image\"\nchmod 0644 \"$KUBECONFIG.image\"\n" +
		"exec podman --runtime runc run --rm --name " + prefix + "-$$ --network host \\\n" +
		"  --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --env-host \\\n" +
		"  --env PATH=/usr/local/bin --env HOME=/home/clusterplane --env TMPDIR=/tmp --env KUBECONFIG=/etc/kubeconfig \\\n" +
		"  -v \"$KUBECONFIG.image:/etc/kubeconfig:ro\" 'oci:" + layout + ":" + tag + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeContainers(prefix) })
	return script, prefix
}

// removeContainers removes every container whose name starts with prefix, whatever became of
// the podman that ran it.
func removeContainers(prefix string) {
	out, _ := exec.Command("podman", "ps", "-a", "-q", "--filter", "name="+prefix).Output()
	for _, id := range strings.Fields(string(out)) {
		_ = exec.Command("podman", "rm", "-f", "-t", "0", id).Run()
	}
}

// imageLayout is the OCI layout `make images` wrote for image, and the tag it holds; the test is
// skipped, saying why, where no container can run it here.
func imageLayout(t *testing.T, image string) (layout, tag string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("podman runs containers as root here (rootless podman needs subordinate ids this machine may lack)")
	}
	for _, tool := range []string{"podman", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH (Debian: apt-get install podman runc; .ci/run installs them): %v", tool, err)
		}
	}
	layout = filepath.Join(root, "bin", "images", image)
	data, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil {
		t.Skipf("no layout in bin/images/%s (make images builds it): %v", image, err)
	}
	var index struct {
		Manifests []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(data, &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("bin/images/%s/index.json holds %d images (%v), want 1", image, len(index.Manifests), err)
	}
	tag = index.Manifests[0].Annotations["org.opencontainers.image.ref.name"]
	if tag == "" {
		t.Fatalf("bin/images/%s's image has no tag", image)
	}
	return layout, tag
}

// containers counts the runners the tests write, for their containers' names.
var containers atomic.Int64

// podmanRunner writes a script that runs the layout's image with its arguments in a container of
// its own, as `podman --runtime runc run` runs it (crun, podman's default, cannot use this
// machine's cgroups, and runc needs the two limits given), on the host's network, with the test's
// clouds, its passphrase and the Pulumi backend in PostgreSQL at backend. The tokens and the
// passphrase are passed by name, from the script's environment (the test's), never on a command
// line. Each start is a container named prefix and the script's process id; every one is removed
// when the test ends, whatever became of the podman that ran it.
func podmanRunner(t *testing.T, e *env, layout, tag, backend string) (script, prefix string) {
	t.Helper()
	var names []string
	for _, kv := range append(e.cloudVars(), goGCVars()...) {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	names = append(names, "PULUMI_CONFIG_PASSPHRASE")
	prefix = fmt.Sprintf("clusterplane-e2e-%d-%d", os.Getpid(), containers.Add(1))
	var text strings.Builder
	fmt.Fprintf(&text, "#!/bin/sh\nexec podman --runtime runc run --rm --name %s-$$ --network host \\\n", prefix)
	text.WriteString("  --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \\\n")
	for _, name := range names {
		fmt.Fprintf(&text, "  --env %s \\\n", name)
	}
	fmt.Fprintf(&text, "  --env PULUMI_BACKEND_URL='%s' \\\n  'oci:%s:%s' \"$@\"\n", backend, layout, tag)
	script = filepath.Join(e.dir, prefix+".sh")
	if err := os.WriteFile(script, []byte(text.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeContainers(prefix) })
	return script, prefix
}
