//go:build e2e

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// karpenterMark is a mark as the Karpenter provider writes it on its pools (karpenter/pkg/clouds.Mark:
// the NodeClass's digest and its spec's hash, 12 hexadecimal characters each).
const karpenterMark = "0123456789ab-cdef01234567"

// A cluster clusterplane deployed, to which the Karpenter provider has added its marked pools: the
// fleet scan and `drift` report no drift for them (they are no stack's), the scan names no
// cluster for adoption, and discover writes no manifest for them; a real change to the pool the
// manifest declares still shows. On both clouds, through the provider's own pool writes
// (pkg/cloud/<cloud>/pools.go with the mark the provider's module sets).
func TestDriftAndTheFleetScanLeaveTheKarpenterProvidersPoolsAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cloud, manifest string
		// setup seeds what the manifest names; karpenterPools adds the provider's pools to the
		// cluster named dev-fra1 and returns their names; resize sets the declared pool's count.
		setup          func(e *env)
		karpenterPools func(t *testing.T, e *env) []string
		resize         func(e *env, count int)
	}{
		{cloud: "digitalocean", manifest: "digitaloceankubernetescluster/minimal.yaml",
			setup:          func(*env) {},
			karpenterPools: doKarpenterPools,
			resize: func(e *env, count int) {
				c := e.doCluster("dev-fra1")
				e.do.EditPool(c.ID, c.NodePools[0].ID, func(p *godo.KubernetesNodePool) { p.Count = count })
			}},
		{cloud: "civo", manifest: "civokubernetescluster/minimal.yaml",
			setup: func(e *env) {
				for id, region := range exampleNetworks {
					e.civo.Networking().SeedNetwork(id, "example-"+id[:8], region)
				}
			},
			karpenterPools: civoKarpenterPools,
			resize: func(e *env, count int) {
				c, _ := e.civo.ClusterNamed("dev-fra1")
				e.civo.Scale(c.ID, c.Pools[0].ID, count)
			}},
	} {
		t.Run(tc.cloud, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tc.setup(e)
			dir := filepath.Join(e.dir, "fleet")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			e.write(filepath.Join("fleet", "dev-fra1.yaml"), example(t, tc.manifest))
			if r, code := e.clusterplane("up", dir, "--yes", "-q"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			pools := tc.karpenterPools(t, e)

			r, code := e.clusterplane("drift", dir)
			if code != 0 || !strings.Contains(r.stderr, "1 stack as recorded") || strings.Contains(r.stdout+r.stderr, "discover writes") {
				t.Errorf("drift with the provider's pools = %d, want 0, the stack as recorded and no cluster to adopt: %s", code, r)
			}
			if r, code := e.clusterplane("drift", dir, "--deep"); code != 0 {
				t.Errorf("drift --deep with the provider's pools = %d, want 0 from the provider's refresh: %s", code, r)
			}
			// discover, asked for the clusters clusterplane deployed too, writes the cluster's
			// manifest and none for the provider's pools, saying whose they are.
			discovered := filepath.Join(e.dir, "discovered")
			r, code = e.clusterplane("discover", tc.cloud, "--include-managed", "--dir", discovered)
			if code != 0 {
				t.Fatalf("discover %s = %d: %s", tc.cloud, code, r)
			}
			files, written := readTree(t, discovered)
			if !slices.Contains(files, "dev-fra1.yaml") || slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, "karpenter") }) {
				t.Errorf("discover wrote %q, want the cluster's manifest and none for the provider's pools %q:\n%s", files, pools, written)
			}
			unwrapped := strings.ReplaceAll(written, "\n# ", " ") // the header's comment lines, joined again
			for _, p := range pools {
				if !strings.Contains(unwrapped, "Pool "+p) || !strings.Contains(unwrapped, "is the Karpenter provider's") {
					t.Errorf("discover does not say the pool %s is the Karpenter provider's:\n%s", p, written)
				}
			}

			// The declared pool changed in the cloud: that still shows, through the scan and the
			// provider's refresh.
			tc.resize(e, 5)
			r, code = e.clusterplane("drift", dir)
			if code != 3 || !strings.Contains(r.stderr, "1 differing") || !strings.Contains(r.stdout+r.stderr, "5") {
				t.Errorf("drift after the declared pool went to 5 nodes = %d, want 3 (drift) from the scan: %s", code, r)
			}
			for _, p := range pools {
				if strings.Contains(r.stdout, p) {
					t.Errorf("drift names the provider's pool %s: %s", p, r)
				}
			}
		})
	}
}

// doKarpenterPools adds two pools to DigitalOcean's cluster dev-fra1 as the provider makes them:
// tagged with its mark, labelled with its NodeClass.
func doKarpenterPools(t *testing.T, e *env) []string {
	t.Helper()
	api := digitalocean.New(e.do.URL(), doToken, digitalocean.Options{})
	c := e.doCluster("dev-fra1")
	var names []string
	for _, size := range []string{"s-2vcpu-4gb", "s-4vcpu-8gb"} {
		name := "karpenter-" + size + "-x1y2z3"
		_, err := api.CreatePool(context.Background(), c.ID, digitalocean.PoolRequest{Name: name, Size: size, Count: 2,
			Tags: []string{digitalocean.KarpenterMarkTag + karpenterMark}, Labels: map[string]string{"karpenter.clusterplane.dev/nodeclass": "default"}})
		if err != nil {
			t.Fatalf("create the provider's pool %s: %v", name, err)
		}
		names = append(names, name)
	}
	return names
}

// civoKarpenterPools adds two pools to Civo's cluster dev-fra1 as the provider makes them:
// labelled with its mark (Civo's pools carry no tags) and its NodeClass.
func civoKarpenterPools(t *testing.T, e *env) []string {
	t.Helper()
	api, err := pools.New(civoToken, e.civo.URL(), "fra1")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := e.civo.ClusterNamed("dev-fra1")
	if !ok {
		t.Fatal("Civo has no cluster dev-fra1")
	}
	var names []string
	for _, size := range []string{"g4s.kube.medium", "g4s.kube.large"} {
		name := "karpenter-" + strings.ReplaceAll(size, ".", "-") + "-x1y2z3"
		err := api.Post(context.Background(), pools.Spec{ClusterID: c.ID, ID: name, Size: size, Count: 2,
			Labels: map[string]string{civo.KarpenterMarkLabel: karpenterMark, "karpenter.clusterplane.dev/nodeclass": "default"}})
		if err != nil {
			t.Fatalf("create the provider's pool %s: %v", name, err)
		}
		names = append(names, name)
	}
	if c, _ = e.civo.ClusterNamed("dev-fra1"); len(c.Pools) != 3 {
		t.Fatalf("Civo's cluster has %d pools after the provider's two, want 3: %+v", len(c.Pools), c.Pools)
	}
	return names
}

// readTree are the names of the files under dir, and all of them, each after its path: what a
// command wrote there.
func readTree(t *testing.T, dir string) ([]string, string) {
	t.Helper()
	var names []string
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		names = append(names, d.Name())
		b.WriteString("== " + path + "\n" + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, b.String()
}
