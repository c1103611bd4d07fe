//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// adoptBearer sends a token as the clouds' CLIs do.
type adoptBearer string

func (b adoptBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// doShape is what adopting must leave as it was on a DigitalOcean cluster: everything but tags.
func doShape(c godo.KubernetesCluster) string {
	s := fmt.Sprintf("%s %s %s vpc=%s subnets=%s,%s ha=%t auto=%t surge=%t", c.Name, c.RegionSlug, c.VersionSlug, c.VPCUUID,
		c.ClusterSubnet, c.ServiceSubnet, c.HA, c.AutoUpgrade, c.SurgeUpgrade)
	if m := c.MaintenancePolicy; m != nil {
		s += fmt.Sprintf(" window=%s@%s", m.Day, m.StartTime)
	}
	for _, p := range c.NodePools {
		s += fmt.Sprintf(" pool=%s/%s/%s/%d/%t/%d/%d", p.ID, p.Name, p.Size, p.Count, p.AutoScale, p.MinNodes, p.MaxNodes)
	}
	return s
}

// civoShape is what adopting must leave as it was on a Civo cluster: everything but tags.
func civoShape(c civogo.KubernetesCluster) string {
	s := fmt.Sprintf("%s %s %s net=%s fw=%s cni=%s type=%s", c.Name, c.KubernetesVersion, c.Version, c.NetworkID, c.FirewallID,
		c.CNIPlugin, c.ClusterType)
	for _, a := range c.InstalledApplications {
		s += " app=" + a.Name
	}
	for _, p := range c.Pools {
		s += fmt.Sprintf(" pool=%s/%s/%d", p.ID, p.Size, p.Count)
	}
	return s
}

// adoptMutations are the requests that may change a cloud, "METHOD path", each once, in order.
func adoptMutations(requests []fakecloud.Request) []string {
	var out []string
	for _, r := range requests {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			continue
		}
		if line := r.Method + " " + r.Path; !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

// adoptReport is the JSON report of a deploy command.
type adoptReport struct {
	Stacks []struct {
		File, Stack, Outcome string
		Resources            []struct {
			Type, Name, Operation string
			// Properties are those the step changes.
			Properties []string
		}
		Drift []struct {
			Field          string
			Live, Manifest any
		}
		// Pending (drift) and Sets (preview) are what the next up applies: after an adopt, what
		// the stack took over as the cloud had it.
		Pending []struct{ Field string }
		Sets    []struct{ Field string }
		InPlace []struct{ Field string } `json:"inPlace"`
	}
}

func (e *env) adoptReport(args ...string) (adoptReport, int, result) {
	e.t.Helper()
	r, code := e.clusterplane(append(args, "-o", "json")...)
	var rep adoptReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		e.t.Fatalf("clusterplane %s -o json: %v\n%s", strings.Join(args, " "), err, r)
	}
	return rep, code, r
}

func TestAClusterMadeOutsideIsAdoptedUntouched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	do, made, civoMade := makeLegacyClusters(t, e, ctx)
	// No second pool: the provider imports a cluster of several pools only when one carries its
	// terraform:default-node-pool tag (resourceDigitalOceanKubernetesClusterImportState); with one
	// pool it adds that tag itself, a tag update.
	defaultPool := made.NodePools[0].ID
	fleet := writeLegacyManifests(t, e, made.ID, civoMade.ID)
	doBefore, _ := e.do.Cluster(made.ID)
	civoBefore, _ := e.civo.Cluster(civoMade.ID)
	e.do.Reset()
	e.civo.Reset()

	rep, code, r := e.adoptReport("adopt", fleet)
	if code != 0 {
		t.Fatalf("adopt of the fleet = %d, want 0\n%s", code, r)
	}
	for _, s := range rep.Stacks {
		for _, f := range s.InPlace {
			if !strings.HasSuffix(f.Field, "tags") && !strings.HasSuffix(f.Field, "labels") {
				t.Errorf("%s: adopt lists %s for the next up, want only tags and labels", s.File, f.Field)
			}
		}
	}
	// What the clouds may receive: tag updates of the clusters and of the default pool (the
	// provider's import tags it; the tags clusterplane adds follow with the next up).
	allowed := []string{"PUT /v2/kubernetes/clusters/" + made.ID, "PUT /v2/kubernetes/clusters/" + made.ID + "/node_pools/" + defaultPool,
		"PUT /v2/kubernetes/clusters/" + civoMade.ID}
	untouched := func(when string) {
		t.Helper()
		doNow, _ := e.do.Cluster(made.ID)
		civoNow, _ := e.civo.Cluster(civoMade.ID)
		if doShape(doNow) != doShape(doBefore) || civoShape(civoNow) != civoShape(civoBefore) {
			t.Errorf("%s changed more than tags:\nDigitalOcean %s\n         now %s\nCivo %s\n now %s",
				when, doShape(doBefore), doShape(doNow), civoShape(civoBefore), civoShape(civoNow))
		}
		for _, m := range append(adoptMutations(e.do.Requests("")), adoptMutations(e.civo.Requests(""))...) {
			if !slices.Contains(allowed, m) {
				t.Errorf("%s: the clouds received %s, want only the tag updates %v", when, m, allowed)
			}
		}
	}
	untouched("adopt")

	previewAndUpAfterAdopt(t, e, fleet)
	// Only tags were updated: the clusters are as their makers left them.
	untouched("up after adopt")
	doAfter, _ := e.do.Cluster(made.ID)
	// Both clean: counted in the summary, not listed.
	if r, code := e.clusterplane("drift", fleet); code != 0 || !strings.Contains(r.stdout, "Stacks: 2 unchanged") {
		t.Errorf("drift after up = %d, want clean\n%s", code, r)
	}
	// The take-over has settled: the fleet scan judges both stacks from the clouds' lists, as any
	// other, and no engine runs.
	e.do.Reset()
	e.civo.Reset()
	if r, code := e.clusterplane("drift", fleet); code != 0 || !strings.Contains(r.stderr, "2 stacks as recorded\n") ||
		strings.Contains(r.stderr, "Previewing") || len(e.clusterReads()) != 0 {
		t.Errorf("a second drift after up = %d, read %v one by one; want both stacks judged by the scan, no engine\n%s", code, e.clusterReads(), r)
	}

	editByHandAndCheckDrift(t, e, ctx, do, made.ID, doAfter.NodePools[0], fleet)
}

// makeLegacyClusters makes a cluster on each cloud through its API, as the clouds' own CLIs do,
// so that what is adopted was made outside clusterplane.
func makeLegacyClusters(t *testing.T, e *env, ctx context.Context) (*godo.Client, *godo.KubernetesCluster, *civogo.KubernetesCluster) {
	t.Helper()
	// DigitalOcean, as doctl makes a cluster: surge upgrades on, the first pool named
	// <cluster>-default-pool; the cloud adds its own k8s tags.
	do, err := godo.New(&http.Client{Transport: adoptBearer(doToken)}, godo.SetBaseURL(e.do.URL()))
	if err != nil {
		t.Fatal(err)
	}
	made, _, err := do.Kubernetes.Create(ctx, &godo.KubernetesClusterCreateRequest{Name: "legacy", RegionSlug: "fra1",
		VersionSlug: "1.31.1-do.5", SurgeUpgrade: true,
		NodePools: []*godo.KubernetesNodePoolCreateRequest{{Name: "legacy-default-pool", Size: "s-2vcpu-4gb", Count: 2}}})
	if err != nil {
		t.Fatalf("create the DigitalOcean cluster through the API: %v", err)
	}
	// Civo, as the civo CLI makes a cluster: the region's default network, a firewall of its own,
	// the marketplace's default applications.
	cv, err := civogo.NewClientWithURL(civoToken, e.civo.URL(), "fra1")
	if err != nil {
		t.Fatal(err)
	}
	civoMade, err := cv.NewKubernetesClusters(&civogo.KubernetesClusterConfig{Name: "legacy-civo", Region: "fra1",
		KubernetesVersion: "1.30.5-k3s1", NetworkID: e.civo.DefaultNetworkID("fra1"), CNIPlugin: "flannel", ClusterType: "k3s",
		Pools: []civogo.KubernetesClusterPoolConfig{{Size: "g4s.kube.small", Count: 1}}})
	if err != nil {
		t.Fatalf("create the Civo cluster through the API: %v", err)
	}
	return do, made, civoMade
}

// writeLegacyManifests writes the manifests of the two clusters by hand, to match them, each with
// its cloud id, and says the folder they are in.
func writeLegacyManifests(t *testing.T, e *env, doID, civoID string) string {
	t.Helper()
	civoLive, _ := e.civo.Cluster(civoID)
	fleet := filepath.Join(e.dir, "fleet")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("fleet/legacy.yaml", `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: legacy
  annotations:
    clusterplane.dev/cloud-id: `+doID+`
spec:
  clusterName: legacy
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  deletionProtection: false
  defaultNodePool:
    nodePoolName: legacy-default-pool
    size: s-2vcpu-4gb
    nodeCount: 2
`)
	e.write("fleet/legacy-civo.yaml", `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: legacy-civo
  annotations:
    clusterplane.dev/cloud-id: `+civoID+`
spec:
  clusterName: legacy-civo
  region: fra1
  kubernetesVersion: 1.30.5-k3s1
  clusterType: k3s
  deletionProtection: false
  network:
    value: `+civoLive.NetworkID+`
  firewall:
    value: `+civoLive.FirewallID+`
  defaultNodePool:
    size: g4s.kube.small
    nodeCount: 1
`)
	return fleet
}

// previewAndUpAfterAdopt checks that the first preview and up after adopt set the tags for the
// first time and nothing else, since nobody changed anything in the cloud.
func previewAndUpAfterAdopt(t *testing.T, e *env, fleet string) {
	t.Helper()
	// The next preview creates, replaces and deletes nothing: at most the tags, in place. What
	// adopt left is what the up sets for the first time, not what changed in the cloud: nobody
	// changed anything there.
	rep, code, r := e.adoptReport("preview", fleet)
	if code != 0 {
		t.Fatalf("preview after adopt = %d\n%s", code, r)
	}
	for _, s := range rep.Stacks {
		for _, res := range s.Resources {
			if res.Operation != "update" {
				t.Errorf("%s: preview would %s %s %s, want at most in-place updates", s.File, res.Operation, res.Type, res.Name)
			}
		}
	}
	if strings.Contains(r.stdout, "changed in the cloud") || strings.Contains(r.stdout, `"putBack"`) {
		t.Errorf("preview after adopt says something changed in the cloud, want only what adopt left:\n%s", r)
	}
	r, code = e.clusterplane("up", fleet, "--yes")
	if code != 0 {
		t.Fatalf("up after adopt = %d\n%s", code, r)
	}
	if strings.Contains(r.stdout, "put back") || !strings.Contains(r.stdout, "set what the stack took over as the cloud had it: spec.tags") {
		t.Errorf("up after adopt names a put-back, or not the tags it sets for the first time:\n%s", r)
	}
}

// editByHandAndCheckDrift edits the tags as a console would and sets the node count by hand, then
// checks that drift shows exactly what the cloud has.
func editByHandAndCheckDrift(t *testing.T, e *env, ctx context.Context, do *godo.Client, clusterID string, pool *godo.KubernetesNodePool, fleet string) {
	t.Helper()
	// A console-style tag edit and a node count set by hand: drift shows exactly what the cloud
	// has, with the tags clusterplane writes itself (on both sides) left out of the user's.
	tags := []string{"hand-edited"}
	edited := append([]string{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:legacy"}, tags...)
	if _, _, err := do.Kubernetes.Update(ctx, clusterID, &godo.KubernetesClusterUpdateRequest{Name: "legacy", Tags: edited}); err != nil {
		t.Fatalf("edit the tags through the API: %v", err)
	}
	three := 3
	if _, _, err := do.Kubernetes.UpdateNodePool(ctx, clusterID, pool.ID, &godo.KubernetesNodePoolUpdateRequest{Name: pool.Name, Count: &three}); err != nil {
		t.Fatalf("scale the pool through the API: %v", err)
	}
	rep, code, r := e.adoptReport("drift", filepath.Join(fleet, "legacy.yaml"))
	if code != 3 || len(rep.Stacks) != 1 {
		t.Fatalf("drift after the edits = %d, want 3\n%s", code, r)
	}
	got := map[string]any{}
	for _, d := range rep.Stacks[0].Drift {
		got[d.Field] = d.Live
	}
	var live []string
	if list, ok := got["spec.tags"].([]any); ok {
		for _, v := range list {
			live = append(live, fmt.Sprint(v))
		}
	}
	slices.Sort(live)
	slices.Sort(tags)
	if !slices.Equal(live, tags) {
		t.Errorf("drift says the cloud's tags are %v, want exactly %v\n%s", got["spec.tags"], tags, r)
	}
	if n, _ := got["spec.defaultNodePool.nodeCount"].(float64); n != 3 {
		t.Errorf("drift says the cloud's node count is %v, want 3\n%s", got["spec.defaultNodePool.nodeCount"], r)
	}
}
