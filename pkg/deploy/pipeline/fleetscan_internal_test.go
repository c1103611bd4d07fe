package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// recordsOf is a recordReader over one stack's records.
type recordsOf stackstate.Records

// The doubles are what readAhead reads records with, to the compiler too.
var (
	_ recordReader = recordsOf{}
	_ recordReader = stackNamed{}
)

func (r recordsOf) Records(context.Context, string, string) (stackstate.Records, error) {
	return stackstate.Records(r), nil
}

func (r recordsOf) LastUpdate(context.Context, string, string) (*stackstate.Update, error) {
	return r.Last, nil
}

// minimalCluster is the DigitalOcean cluster example's target, its name replaced.
func minimalCluster(t *testing.T, name string) deploytarget.Target {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	in := k.NewStackInput()
	text := []byte(strings.ReplaceAll(string(data), "dev-fra1", name))
	if err := stackinput.Parse(text, "c.yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("c.yaml", k, in, "")
}

// minimalPool is the DigitalOcean node pool example's target, pool.yaml.
func minimalPool(t *testing.T) deploytarget.Target {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "digitaloceankubernetesnodepool", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesNodePool")
	in := k.NewStackInput()
	if err := stackinput.Parse(data, "pool.yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("pool.yaml", k, in, "")
}

// scannedCluster is one DigitalOcean cluster in a loopback cloud, as the fleet scan finds it: the
// cloud, the cluster's id and record there, the target that deployed it, and records makes the
// stack's records as an up of program ending in last would leave them, with extra resources.
type scannedCluster struct {
	do       *fakedo.DO
	id       string
	cl       godo.KubernetesCluster
	deployed deploytarget.Target
	records  func(program, last string, extra ...apitype.ResourceV3) stackstate.Records
}

func newScannedCluster(t *testing.T) scannedCluster {
	t.Helper()
	do := fakedo.New(t, "scan-token")
	t.Setenv(digitalocean.TokenEnv, "scan-token")
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	id := do.SeedCluster(godo.KubernetesCluster{Name: "dev-fra1", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"terraform:default-node-pool"}}}})
	cl, _ := do.Cluster(id)
	deployed := minimalCluster(t, "dev-fra1")
	manifest, _ := stackrecord.Manifest(deployed.Input)
	cluster := func() apitype.ResourceV3 {
		return apitype.ResourceV3{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", Custom: true, ID: resource.ID(id),
			Outputs: map[string]any{"name": "dev-fra1", "region": "fra1", "version": "1.31.1-do.5", "vpcUuid": cl.VPCUUID,
				"clusterSubnet": cl.ClusterSubnet, "serviceSubnet": cl.ServiceSubnet, "surgeUpgrade": cl.SurgeUpgrade,
				"maintenancePolicy": map[string]any{"day": cl.MaintenancePolicy.Day.String(), "startTime": cl.MaintenancePolicy.StartTime},
				"nodePool":          map[string]any{"id": cl.NodePools[0].ID, "name": "default", "size": "s-2vcpu-4gb", "nodeCount": 2}}}
	}
	records := func(program, last string, extra ...apitype.ResourceV3) stackstate.Records {
		c := cluster()
		resources := []apitype.ResourceV3{{Type: "pulumi:pulumi:Stack", Outputs: map[string]any{
			deploytarget.GenerationOutput: deploytarget.Generation(deployed.Input), deploytarget.ManifestOutput: manifest, stackrecord.ProgramOutput: program}}, c}
		data, err := json.Marshal(apitype.DeploymentV3{Resources: append(resources, extra...)})
		if err != nil {
			t.Fatal(err)
		}
		return stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: data}, Last: &stackstate.Update{Operation: "update", Result: last},
			Newest: "update"}
	}
	return scannedCluster{do: do, id: id, cl: cl, deployed: deployed, records: records}
}

// Promise: scan-leaves-unjudged-to-engine
// Promise: architecture-scan-finding-asks-the-refresh
func TestTheFleetScanRunsNoStackItCanVouchFor(t *testing.T) {
	c := newScannedCluster(t)
	do, id, cl, deployed, records := c.do, c.id, c.cl, c.deployed, c.records
	this := stackrecord.Program()
	refreshed := records(this, "succeeded")
	refreshed.Newest = "refresh"
	adopted := records(this, "succeeded")
	adopted.Last.Message = fielddrift.AdoptedWithChangesLeft
	imported := records(this, "succeeded")
	imported.WrittenSinceRecord = true
	// An up that read labels added in the cloud, which it cannot empty: the state holds them, the
	// inputs (the manifest) have none, and the cloud lists what the state holds.
	labelled := records(this, "succeeded")
	var st apitype.DeploymentV3
	if err := json.Unmarshal(labelled.State.Deployment, &st); err != nil {
		t.Fatal(err)
	}
	st.Resources[1].Inputs = map[string]any{"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "nodeCount": 2}}
	st.Resources[1].Outputs["nodePool"].(map[string]any)["labels"] = map[string]any{"sneaky": "yes"}
	labelled.State.Deployment, _ = json.Marshal(st)
	// An adopted cluster after its first up: the provider files the default pool's count under
	// actualNodeCount only (flattenNodePool sets node_count only once a configuration set it).
	takenOver := records(this, "succeeded")
	if err := json.Unmarshal(takenOver.State.Deployment, &st); err != nil {
		t.Fatal(err)
	}
	st.Resources[1].Outputs["nodePool"] = map[string]any{"id": cl.NodePools[0].ID, "name": "default", "size": "s-2vcpu-4gb",
		"nodeCount": 0, "actualNodeCount": 2}
	takenOver.State.Deployment, _ = json.Marshal(st)
	tests := []struct {
		name      string
		target    deploytarget.Target
		records   stackstate.Records
		edit      func()
		verdict   scan.Verdict
		unchanged bool
	}{
		{"an adopted cluster whose count the provider reads as actualNodeCount is as recorded", deployed, takenOver, nil, scan.Same, true},
		{"a stack as its last up left it is unchanged", deployed, records(this, "succeeded"), nil, scan.Same, true},
		{"a changed manifest is run, though its cloud is as recorded", minimalCluster(t, "dev-fra1-b"), records(this, "succeeded"), nil, scan.Same, false},
		{"a stack another clusterplane build deployed is run", deployed, records("0.0.0+other", "succeeded"), nil, scan.Same, false},
		{"a stack whose last update failed is not judged", deployed, records(this, "failed"), nil, scan.Unjudged, false},
		{"a stack holding a resource the scan does not read is not judged", deployed,
			records(this, "succeeded", apitype.ResourceV3{Type: "digitalocean:index/firewall:Firewall", Custom: true, ID: "fw"}), nil, scan.Unjudged, false},
		{"a stack refreshed since its last up is not judged: its state is the cloud's now", deployed, refreshed, nil, scan.Unjudged, false},
		{"a stack adopted with changes left for the next up is not judged", deployed, adopted, nil, scan.Unjudged, false},
		{"a stack whose state was imported since its last record is not judged: the record says nothing of it", deployed, imported, nil,
			scan.Unjudged, false},
		{"a stack whose last up left labels no up removes is not judged", deployed, labelled, func() {
			do.EditPool(id, cl.NodePools[0].ID, func(p *godo.KubernetesNodePool) { p.Labels = map[string]string{"sneaky": "yes"} })
		}, scan.Unjudged, false},
		{"a pool resized in the cloud is run", deployed, records(this, "succeeded"), func() {
			do.EditPool(id, cl.NodePools[0].ID, func(p *godo.KubernetesNodePool) { p.Count = 5 })
		}, scan.Differs, false},
		{"an adopted cluster's pool resized in the cloud is run", deployed, takenOver, nil, scan.Differs, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit != nil {
				tt.edit()
			}
			read := readAhead(context.Background(), recordsOf(tt.records), []deploytarget.Target{tt.target})
			got, _ := judge(context.Background(), scan.New(), read(), tt.target, nil)
			if got.Verdict != tt.verdict || got.Unchanged != tt.unchanged {
				t.Errorf("verdict %s (%s), unchanged %v; want %s, unchanged %v", got.Verdict, got.Why, got.Unchanged, tt.verdict, tt.unchanged)
			}
		})
	}
}

// notListed are the properties a manifest sends that no list of the cloud answers: the provider
// keeps them from the manifest (how long a fetched kubeconfig lasts) or never reads them back
// (effects.Table.NeverReadBack). The scan cannot compare them, and the provider's refresh finds
// no drift in them either.
// Civo's provider reads back neither the applications it installed at create (it reads
// installed_applications) nor the first pool's labels and taints (flattenNodePool,
// civo/kubernetes/kubernetes.go).
var notListed = map[string]bool{"kubeconfigExpireSeconds": true, "applications": true, "pools.labels": true, "pools.taints": true}

// TestTheFleetScanComparesEveryPropertyAManifestSends holds the scan's lists of compared
// properties (package scan) to the effects tables: a field a manifest sends to a resource the scan
// judges, which the scan did not compare, would be a drift preview and up leave in place. That the
// scan compares each as the provider's refresh does (set, changed and removed in the cloud) is
// held on the real plugins by e2e/scandiff_test.go.
func TestTheFleetScanComparesEveryPropertyAManifestSends(t *testing.T) {
	camel := func(attr string) string {
		plural := map[string]string{"cluster_autoscaler_configuration": "clusterAutoscalerConfigurations", "taint": "taints",
			"ingress_rule": "ingressRules", "egress_rule": "egressRules"}
		var parts []string
		for _, seg := range strings.Split(attr, ".") {
			if p, ok := plural[seg]; ok {
				parts = append(parts, p)
				continue
			}
			words := strings.Split(seg, "_")
			for i := 1; i < len(words); i++ {
				words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
			}
			parts = append(parts, strings.Join(words, ""))
		}
		return strings.Join(parts, ".")
	}
	covered := func(compared []string, property string) bool {
		for _, c := range compared {
			if c == property || strings.HasPrefix(c, property+".") || strings.HasPrefix(property, c+".") {
				return true
			}
		}
		return false
	}
	judgedKinds := 0
	for _, k := range registry.Kinds() {
		table := k.Effects
		if scan.Compared(deploytarget.GuardedType(table)) == nil {
			continue
		}
		judgedKinds++
		for _, row := range table.Rows {
			compared := scan.Compared(table.Types[row.Resource])
			if compared == nil || row.Attribute == "" {
				continue
			}
			_, attr, _ := strings.Cut(row.Attribute, ".")
			property := camel(attr)
			top, _, _ := strings.Cut(property, ".")
			if table.NeverReadBack[top] || notListed[top] || notListed[property] {
				continue
			}
			if !covered(compared, property) {
				t.Errorf("%s: %s is sent as %s, which the fleet scan does not compare", k.Name, row.Path, property)
			}
		}
	}
	if judgedKinds < 3 {
		t.Errorf("the scan judges %d kinds' resources, want the DigitalOcean cluster and pool and the Civo cluster", judgedKinds)
	}
}

func TestAStackReferenceIsVouchedForOnlyWhileTheStackItReadsHoldsWhatItRead(t *testing.T) {
	ref := apitype.ResourceV3{Type: "pulumi:pulumi:StackReference", Custom: true,
		Inputs:  map[string]any{"name": "organization/digitaloceankubernetescluster/dev-fra1"},
		Outputs: map[string]any{"outputs": map[string]any{"cluster_id": "c-1", "kubeconfig": map[string]any{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "v1:a"}}}}
	tests := []struct {
		name     string
		recorded map[string]map[string]stackstate.Output
		says     string
	}{
		{"the stack read holds what was read", map[string]map[string]stackstate.Output{"digitaloceankubernetescluster/dev-fra1": {
			"cluster_id": {Value: "c-1"}, "kubeconfig": {Secret: true}}}, ""},
		{"an output changed since it was read", map[string]map[string]stackstate.Output{"digitaloceankubernetescluster/dev-fra1": {
			"cluster_id": {Value: "c-2"}}}, "whose output cluster_id changed since"},
		{"an output added since it was read", map[string]map[string]stackstate.Output{"digitaloceankubernetescluster/dev-fra1": {
			"cluster_id": {Value: "c-1"}, "vpc_uuid": {Value: "v"}}}, "whose output vpc_uuid changed since"},
		{"the stack read is not among those judged", map[string]map[string]stackstate.Output{}, "whose records this scan did not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAsRecorded(ref, tt.recorded)
			if tt.says == "" && got != "" || tt.says != "" && !strings.Contains(got, tt.says) {
				t.Errorf("%q, want %q", got, tt.says)
			}
		})
	}
}

// stackNamed is a recordReader whose records name the stack read, after a pause of up to a
// millisecond: reads end in another order than they start.
type stackNamed struct{}

func (stackNamed) Records(_ context.Context, _, stack string) (stackstate.Records, error) {
	time.Sleep(time.Duration(rand.IntN(1000)) * time.Microsecond)
	return stackstate.Records{Newest: stack}, nil
}

func (stackNamed) LastUpdate(context.Context, string, string) (*stackstate.Update, error) {
	return nil, nil
}

func TestTheFleetScanTakesEachStacksRecordsInTheTargetsOrder(t *testing.T) {
	t.Setenv(digitalocean.TokenEnv, "scan-token")
	tests := []struct {
		name   string
		stacks int
	}{
		{"one stack", 1},
		{"fewer stacks than are read at once", 3},
		{"many more stacks than are read at once", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets := make([]deploytarget.Target, tt.stacks)
			for i := range targets {
				targets[i] = minimalCluster(t, fmt.Sprintf("c-%04d", i))
			}
			next := readAhead(context.Background(), stackNamed{}, targets)
			for i, target := range targets {
				if got := next().rec.Newest; got != target.Stack {
					t.Fatalf("the records of target %d are stack %s's, want %s's", i, got, target.Stack)
				}
			}
		})
	}
}

// A stack destroyed successfully holds nothing: the scan says it is not deployed, as drift does
// (fielddrift.NotDeployed), not that its last update did not succeed.
// Promise: scan-line-counts-not-deployed
func TestTheFleetScanSaysAStackDestroyedHoldsNothingNotThatItsLastUpdateFailed(t *testing.T) {
	data, err := json.Marshal(apitype.DeploymentV3{})
	if err != nil {
		t.Fatal(err)
	}
	destroyed := stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: data},
		Last: &stackstate.Update{Operation: "destroy", Result: "succeeded"}, Newest: "destroy"}
	t.Setenv(digitalocean.TokenEnv, "scan-token")
	target := minimalCluster(t, "dev-fra1")
	read := readAhead(context.Background(), recordsOf(destroyed), []deploytarget.Target{target})
	got, _ := judge(context.Background(), scan.New(), read(), target, nil)
	if got.Verdict != scan.Unjudged || got.Why != notDeployed {
		t.Errorf("a destroyed stack: %s (%s), want not deployed", got.Verdict, got.Why)
	}
}

// The scan's line counts the stacks that hold nothing as not deployed, and says the provider's
// refresh reads the others only when there are others.
// Promise: scan-line-counts-not-deployed
func TestTheFleetScansLineSaysWhatTheRefreshReadsOnlyWhenItReadsSomething(t *testing.T) {
	tests := []struct {
		name    string
		c       tally
		says    string
		saysNot []string
	}{
		{"a fleet of one destroyed stack: not deployed, nothing left to refresh",
			tally{requests: 1, stacks: 1, notDeployed: 1},
			"fleet scan: 1 cloud request; 0 stacks as recorded, 1 not deployed (nothing to compare)",
			[]string{"not judged", "reads the others"}},
		{"a stack not judged beside a destroyed one: the refresh reads it",
			tally{requests: 1, stacks: 2, notDeployed: 1, verdicts: map[scan.Verdict]int{scan.Unjudged: 1},
				unjudged: map[string]int{"the last update did not succeed": 1}},
			"1 not judged (1: the last update did not succeed), 1 not deployed (nothing to compare); the provider's refresh reads the others",
			nil},
		{"every stack unchanged: nothing left to refresh",
			tally{requests: 1, stacks: 2, skipped: 2, verdicts: map[scan.Verdict]int{scan.Same: 2}},
			"fleet scan: 1 cloud request; 2 stacks as recorded", []string{"reads the others"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := tt.c.line(operation.Drift)
			if !strings.Contains(line, tt.says) {
				t.Errorf("%q, want it to say %q", line, tt.says)
			}
			for _, not := range tt.saysNot {
				if strings.Contains(line, not) {
					t.Errorf("%q says %q", line, not)
				}
			}
		})
	}
}

// recordsByStack is a backend whose records are read directly, by stack name; keeping a stack's
// parsed state (Records.Keep) is noted in kept. What the fleet scan does not ask of a backend is
// left to the embedded nil one.
type recordsByStack struct {
	stackstate.Backend
	records map[string]stackstate.Records
	kept    map[string]bool
}

func (b recordsByStack) ReadsRecords() bool { return true }

func (b recordsByStack) Records(_ context.Context, _, stack string) (stackstate.Records, error) {
	rec, ok := b.records[stack]
	if !ok {
		return stackstate.Records{}, stackstate.ErrNotDeployed
	}
	rec.Keep = func() { b.kept[stack] = true }
	return rec, nil
}

// The stacks the scan leaves to run read their state first thing: the scan keeps the state it
// parsed for them, and for no stack it leaves alone (unchanged, or holding nothing).
// Promise: scan-keeps-parsed-state
func TestTheFleetScanKeepsTheParsedStateOfEachStackItLeavesToRun(t *testing.T) {
	c := newScannedCluster(t)
	this := stackrecord.Program()
	destroyedState, err := json.Marshal(apitype.DeploymentV3{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		target  deploytarget.Target
		records stackstate.Records
		kept    bool
	}{
		{"a stack as its last up left it is not run: nothing kept", c.deployed, c.records(this, "succeeded"), false},
		{"a changed manifest is run: its state kept", minimalCluster(t, "dev-fra1-b"), c.records(this, "succeeded"), true},
		{"a stack whose last update failed is run: its state kept", minimalCluster(t, "dev-fra1-c"), c.records(this, "failed"), true},
		{"a destroyed stack holds nothing to read: nothing kept", minimalCluster(t, "dev-fra1-d"),
			stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: destroyedState},
				Last: &stackstate.Update{Operation: "destroy", Result: "succeeded"}, Newest: "destroy"}, false},
	}
	b := recordsByStack{records: map[string]stackstate.Records{}, kept: map[string]bool{}}
	var targets []deploytarget.Target
	for _, tt := range tests {
		b.records[tt.target.Stack] = tt.records
		targets = append(targets, tt.target)
	}
	Request{Op: Drift(false)}.scanFleet(context.Background(), b, targets)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b.kept[tt.target.Stack] != tt.kept {
				t.Errorf("kept: %v, want %v", b.kept[tt.target.Stack], tt.kept)
			}
		})
	}
}

// The scan's line of clusters no stack holds (for discover) leaves out every cluster a given
// stack holds, whether the scan could judge that stack or not: a stack whose last update failed
// still holds its cluster.
func TestTheClustersNoStackHoldsLeaveOutThoseOfStacksTheScanCouldNotJudge(t *testing.T) {
	c := newScannedCluster(t)
	this := stackrecord.Program()
	otherID := c.do.SeedCluster(godo.KubernetesCluster{Name: "dev-fra1-c", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"terraform:default-node-pool"}}}})
	strangerID := c.do.SeedCluster(godo.KubernetesCluster{Name: "made-by-hand", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	failed := c.records(this, "failed")
	failed.State.Deployment = []byte(strings.ReplaceAll(string(failed.State.Deployment), c.id, otherID))
	unjudgedTarget := minimalCluster(t, "dev-fra1-c")
	s := scan.New()
	// The stack as its last up left it is judged first, listing the account; the other is not.
	for _, st := range []struct {
		target  deploytarget.Target
		records stackstate.Records
		verdict scan.Verdict
	}{{c.deployed, c.records(this, "succeeded"), scan.Same}, {unjudgedTarget, failed, scan.Unjudged}} {
		read := readAhead(context.Background(), recordsOf(st.records), []deploytarget.Target{st.target})
		if got, _ := judge(context.Background(), s, read(), st.target, nil); got.Verdict != st.verdict {
			t.Fatalf("%s: verdict %s (%s), want %s", st.target.Key(), got.Verdict, got.Why, st.verdict)
		}
	}
	var unheld []string
	for _, cl := range s.Unheld() {
		unheld = append(unheld, cl.ID)
	}
	if len(unheld) != 1 || unheld[0] != strangerID {
		t.Errorf("clusters no stack holds: %v, want only %s (made by hand), not %s (its stack not judged)", unheld, strangerID, otherID)
	}
}

// A stack holds its cluster: a cluster stack's by its cluster's id, a pool stack's by the
// clusterId its pool records; a resource pending deletion is held no more.
func TestTheClustersAStackHoldsAreItsClustersOrItsPoolsCluster(t *testing.T) {
	pool := minimalPool(t)
	cluster := minimalCluster(t, "dev-fra1")
	state := func(resources ...apitype.ResourceV3) stackstate.State {
		return stackstate.State{Deployment: apitype.DeploymentV3{Resources: resources}}
	}
	clusterType, poolType := deploytarget.GuardedType(cluster.Effects), deploytarget.GuardedType(pool.Effects)
	tests := []struct {
		name   string
		target deploytarget.Target
		state  stackstate.State
		want   []string
	}{
		{"a cluster stack holds its cluster", cluster, state(apitype.ResourceV3{Type: tokens.Type(clusterType), ID: "c-1"}), []string{"c-1"}},
		{"a pool stack holds its pool's cluster", pool,
			state(apitype.ResourceV3{Type: tokens.Type(poolType), ID: "p-1", Outputs: map[string]any{"clusterId": "c-2"}}), []string{"c-2"}},
		{"a cluster pending deletion is held no more", cluster, state(apitype.ResourceV3{Type: tokens.Type(clusterType), ID: "c-1", Delete: true}), nil},
		{"a stack of nothing holds nothing", pool, state(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clustersHeld(tt.target, tt.state); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("clustersHeld = %v, want %v", got, tt.want)
			}
		})
	}
}

func (b recordsByStack) ID() string { return "records-by-stack" }

// A cluster carrying the mark of a given stack that the stack does not record is that stack's to
// name (drift exit 3, with its adopt command); one marked by a stack of the backend that no
// manifest given deploys is said in the scan's line; one marked in another backend, or unmarked,
// is neither, though a stack that holds nothing here is told of the one its own mark in another
// backend is on.
// Promise: drift-names-unrecorded-marked-clusters
func TestTheFleetScanNamesTheClustersMarkedByAStackThatDoesNotRecordThem(t *testing.T) {
	c := newScannedCluster(t)
	this := stackrecord.Program()
	b := recordsByStack{records: map[string]stackstate.Records{c.deployed.Stack: c.records(this, "succeeded")}, kept: map[string]bool{}}
	neverDeployed := minimalCluster(t, "dev-fra1-lost")
	seed := func(name string, tags ...string) string {
		return c.do.SeedCluster(godo.KubernetesCluster{Name: name, RegionSlug: "fra1", VersionSlug: "1.31.1-do.5", Tags: tags,
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	}
	markOf := func(backend string, t deploytarget.Target) string { return stackmark.Of(backend, t.Key()).Tag() }
	lostID := seed("dev-fra1-lost", markOf(b.ID(), neverDeployed))
	secondID := seed("dev-fra1", markOf(b.ID(), c.deployed))
	elsewhereID := seed("dev-fra1-elsewhere", markOf(b.ID(), minimalCluster(t, "dev-fra1-elsewhere")))
	otherBackendID := seed("dev-fra1-other", markOf("another-backend", neverDeployed))
	otherBackendOfDeployedID := seed("dev-fra1-other-2", markOf("another-backend", c.deployed))
	// A stack deployed from another backend, under the name and in the region this one's up
	// would create.
	moved := minimalCluster(t, "dev-fra1-moved")
	movedID := seed("dev-fra1-moved", markOf("another-backend", moved))
	byHandID := seed("made-by-hand")
	var said []string
	out := Request{Op: Drift(false), Say: func(line string) { said = append(said, line) }}.scanFleet(context.Background(), b,
		[]deploytarget.Target{c.deployed, neverDeployed, moved})
	ids := func(live []kinds.Live) []string {
		var out []string
		for _, l := range live {
			out = append(out, l.ID)
		}
		return out
	}
	tests := []struct {
		name, key string
		want      []string
	}{
		{"a stack that holds nothing is named the cluster its mark is on", neverDeployed.Key(), []string{lostID}},
		{"a stack that holds its cluster is named a second one carrying its mark", c.deployed.Key(), []string{secondID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(out[tt.key].Unrecorded); !slices.Equal(got, tt.want) {
				t.Errorf("unrecorded: %v, want %v", got, tt.want)
			}
		})
	}
	var marked string
	for _, line := range said {
		if strings.Contains(line, "the mark of a stack of this backend that none of these manifests deploys") {
			marked = line
		}
	}
	if !strings.Contains(marked, elsewhereID) || strings.Contains(marked, otherBackendID) || strings.Contains(marked, byHandID) {
		t.Errorf("the scan's line of marked clusters = %q, want %s alone (marked by a stack no manifest given deploys):\n%s",
			marked, elsewhereID, strings.Join(said, "\n"))
	}
	// A stack that holds nothing here is told of its cluster in another backend, which up here
	// would refuse; not of one of another name, which up would not; and a stack that holds its
	// cluster here is not.
	if got := ids(out[moved.Key()].ElsewhereMarked); !slices.Equal(got, []string{movedID}) {
		t.Errorf("%s: marked in another backend %v, want %s", moved.Key(), got, movedID)
	}
	if got := out[neverDeployed.Key()].ElsewhereMarked; len(got) != 0 {
		t.Errorf("%s: marked in another backend %v, want none: %s is of another name", neverDeployed.Key(), ids(got), otherBackendID)
	}
	if got := out[c.deployed.Key()].ElsewhereMarked; len(got) != 0 {
		t.Errorf("%s, which holds its cluster: marked in another backend %v, want none", c.deployed.Key(), ids(got))
	}
	for _, id := range []string{otherBackendID, otherBackendOfDeployedID, byHandID} {
		for key, sc := range out {
			if slices.Contains(ids(sc.Unrecorded), id) {
				t.Errorf("%s is named as %s's, though no stack of this backend marked it", id, key)
			}
		}
	}
}

// What a cluster stack records, for the scan's unrecorded clusters: a cluster a replacement is
// deleting is still the stack's (it deletes it itself), and while a create is pending nothing is
// known (what it makes is the stack's, unrecorded yet), nor while a rotation is recorded (its
// pools are its record's).
func TestTheClustersAStackRecordsCountOneBeingDeletedAndNothingWhileACreateIsPending(t *testing.T) {
	c := minimalCluster(t, "dev-fra1")
	typ := deploytarget.GuardedType(c.Effects)
	tests := []struct {
		name      string
		st        apitype.DeploymentV3
		want      []string
		wantKnown bool
	}{
		{"its cluster and the one a replacement deletes", apitype.DeploymentV3{Resources: []apitype.ResourceV3{
			{Type: tokens.Type(typ), ID: "new"}, {Type: tokens.Type(typ), ID: "old", Delete: true}}}, []string{"new", "old"}, true},
		{"nothing held is known to hold nothing", apitype.DeploymentV3{}, []string{}, true},
		{"a create pending leaves it unknown", apitype.DeploymentV3{PendingOperations: []apitype.OperationV2{{Type: apitype.OperationTypeCreating,
			Resource: apitype.ResourceV3{Type: tokens.Type(typ), URN: resource.URN("urn:pulumi:s::p::" + typ + "::c")}}}}, nil, false},
		{"a rotation recorded leaves it unknown", apitype.DeploymentV3{Resources: []apitype.ResourceV3{
			{Type: "pulumi:pulumi:Stack", URN: "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s", Outputs: map[string]any{rotationrun.RotationOutput: `{"id":"abc"}`}},
			{Type: tokens.Type(typ), ID: "c-1"}}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, known := recordedClusters(c, stackstate.State{Deployment: tt.st})
			if known != tt.wantKnown || !slices.Equal(ids, tt.want) {
				t.Errorf("recordedClusters = %v, %v; want %v, %v", ids, known, tt.want, tt.wantKnown)
			}
		})
	}
}

// A pool the scan listed carrying the mark of a given pool stack that does not record it is that
// stack's to name, with the id adopt takes (Civo's CLUSTER_ID:POOL_NAME); one the stack records,
// one marked by a stack of the backend no manifest given deploys (said in the scan's line), and
// one marked in another backend are not.
// Promise: drift-names-unrecorded-marked-pools
func TestTheFleetScanNamesThePoolsMarkedByAPoolStackThatDoesNotRecordThem(t *testing.T) {
	pool := minimalPool(t)
	const backend = "file:///state"
	mark := func(key string) []string { return []string{"resource-name:x", stackmark.Of(backend, key).Tag()} }
	in2 := func(id, name string, tags []string) cloud.ListedPool {
		return cloud.ListedPool{Cluster: cloud.ListedCluster{Cloud: "digitalocean", ID: "c-1", Name: "dev-fra1", Region: "fra1"},
			ID: id, AdoptID: "adopt-" + id, Name: name, Tags: tags}
	}
	listed := []cloud.ListedPool{
		in2("p-lost", "workers-lost", mark(pool.Key())),
		in2("p-held", "workers", mark(pool.Key())),
		in2("p-other", "batch", mark("digitaloceankubernetesnodepool/elsewhere")),
		in2("p-backend", "gpu", []string{stackmark.Of("file:///another", pool.Key()).Tag()}),
		in2("p-hand", "by-hand", []string{"resource-name:by-hand"}),
	}
	cluster := minimalCluster(t, "dev-fra1")
	// A pool carrying a cluster stack's mark is no pool stack's to name.
	listed = append(listed, in2("p-cluster", "default", mark(cluster.Key())))
	out := map[string]deploy.Scanned{}
	others := markUnrecorded(out, backend, nil, listed, []deploytarget.Target{pool, cluster},
		map[string][]string{pool.Key(): {"p-held"}, cluster.Key(): {"c-1"}})
	if got := out[cluster.Key()].Unrecorded; len(got) != 0 {
		t.Errorf("the cluster stack's unrecorded: %+v, want none", got)
	}
	got := out[pool.Key()].Unrecorded
	if len(got) != 1 || got[0].ID != "adopt-p-lost" || got[0].Type != "node pool" || got[0].Where != "cluster dev-fra1" {
		t.Errorf("the pool stack's unrecorded: %+v, want pool workers-lost alone, by the id adopt takes", got)
	}
	if len(others) != 1 || !strings.Contains(others[0], "batch (adopt-p-other) of cluster dev-fra1") {
		t.Errorf("marked by no manifest's stack: %v, want pool batch alone", others)
	}
	if line := unrecordedLine(others); !strings.Contains(line, "1 cluster or pool in the listed accounts carries the mark") {
		t.Errorf("the scan's line %q", line)
	}
}

// DigitalOcean's list gives the pools that carry a stack's mark by their tag: not a cluster's
// default pool (its cluster stack's) nor a rotation's pool (its rotation's).
func TestTheListedPoolsCarryingAMarkAreTheMarkedPools(t *testing.T) {
	m := stackmark.Of("file:///state", "p/s")
	do := fakedo.New(t, "t")
	ctx := context.Background()
	do.SeedCluster(godo.KubernetesCluster{Name: "c", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 1},
		{Name: "marked", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{m.Tag()}},
		{Name: "default-marked", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{m.Tag(), "terraform:default-node-pool"}},
		{Name: "rotating", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{m.Tag(), digitalocean.MarkTag + "abc"}}}})
	s := scan.New()
	s.List(ctx, scan.Account{Cloud: "digitalocean", Base: do.URL(), Token: "t"}, "digitalocean:index/kubernetesNodePool:KubernetesNodePool", "")
	pools := s.MarkedPools()
	if len(pools) != 1 || pools[0].Name != "marked" || pools[0].AdoptID != pools[0].ID || !slices.Contains(pools[0].Tags, m.Tag()) {
		t.Errorf("DigitalOcean's marked pools: %+v, want pool marked alone, with its tag", pools)
	}
}
