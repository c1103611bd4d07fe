package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// A Civo cluster's stack as the state holds it: the stack, the component, the provider, the
// firewall and the cluster, which depends on the firewall.
const (
	stackURN     = "urn:pulumi:dev-fra1::civokubernetescluster::pulumi:pulumi:Stack::civokubernetescluster-dev-fra1"
	componentURN = "urn:pulumi:dev-fra1::civokubernetescluster::clusterplane:civo:KubernetesCluster::dev-fra1"
	providerURN  = "urn:pulumi:dev-fra1::civokubernetescluster::pulumi:providers:civo::dev-fra1"
	firewallURN  = "urn:pulumi:dev-fra1::civokubernetescluster::clusterplane:civo:KubernetesCluster$civo:index/firewall:Firewall::dev-fra1"
	clusterURN   = "urn:pulumi:dev-fra1::civokubernetescluster::clusterplane:civo:KubernetesCluster$civo:index/kubernetesCluster:KubernetesCluster::dev-fra1"
	firewallType = "civo:index/firewall:Firewall"
)

// civoStack is the stack's resources, the firewall with id firewall ("" for none).
func civoStack(firewall string) []apitype.ResourceV3 {
	out := []apitype.ResourceV3{
		{URN: stackURN, Type: resource.RootStackType},
		{URN: componentURN, Type: "clusterplane:civo:KubernetesCluster", Parent: stackURN},
		{URN: providerURN, Type: "pulumi:providers:civo", Custom: true, ID: "prov", Parent: stackURN},
	}
	if firewall != "" {
		out = append(out, apitype.ResourceV3{URN: firewallURN, Type: firewallType, Custom: true, ID: resource.ID(firewall),
			Parent: componentURN, Provider: providerURN + "::prov", Outputs: map[string]any{"name": "dev-fra1", "region": "fra1"}})
	}
	return append(out, apitype.ResourceV3{URN: clusterURN, Type: "civo:index/kubernetesCluster:KubernetesCluster", Custom: true,
		ID: "cl-1", Parent: componentURN, Provider: providerURN + "::prov", Dependencies: []resource.URN{firewallURN},
		Outputs: map[string]any{"name": "dev-fra1", "region": "fra1"}})
}

// checkpoint is a state of those resources, as `pulumi stack export` writes it.
func checkpoint(t *testing.T, resources []apitype.ResourceV3) stackstate.State {
	t.Helper()
	data, err := json.Marshal(apitype.DeploymentV3{Resources: resources})
	if err != nil {
		t.Fatal(err)
	}
	st, err := stackstate.StateOf(apitype.UntypedDeployment{Version: 3, Deployment: data})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestDroppedByReadAreWhatTheOperationLostWithoutMeaningTo(t *testing.T) {
	tests := []struct {
		name  string
		after []apitype.ResourceV3
		steps []stackstate.Step
		want  []resource.URN
	}{
		{name: "a resource a read dropped is", after: civoStack(""), want: []resource.URN{firewallURN}},
		{name: "a resource made again with another id is", after: civoStack("fw-2"),
			steps: []stackstate.Step{{URN: firewallURN, Action: "create"}}, want: []resource.URN{firewallURN}},
		{name: "a resource still held is not", after: civoStack("fw-1")},
		{name: "a resource the operation deleted is not", after: civoStack(""), steps: []stackstate.Step{{URN: firewallURN, Action: "delete"}}},
		{name: "a resource the operation replaced is not", after: civoStack("fw-2"), steps: []stackstate.Step{{URN: firewallURN, Action: "replace"}}},
		{name: "the stack, components and providers never are", after: civoStack("fw-1")[3:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []resource.URN
			for _, r := range readrepair.DroppedByRead(checkpoint(t, civoStack("fw-1")), checkpoint(t, tt.after), tt.steps) {
				got = append(got, r.URN)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("dropped = %v, want %v", got, tt.want)
			}
		})
	}
}

// guardedStack is a stack whose state is after until Import replaces it; the engine's own
// operations are not used.
type guardedStack struct {
	stackstate.Stack
	state    stackstate.State
	exported int
	imported *stackstate.State
}

func (s *guardedStack) State(context.Context) (stackstate.State, error) {
	s.exported++
	return s.state, nil
}

func (s *guardedStack) Import(_ context.Context, raw apitype.UntypedDeployment) error {
	st, err := stackstate.StateOf(raw)
	s.imported, s.state = &st, st
	return err
}

// civoCluster is the Civo cluster example's target.
func civoCluster(t *testing.T) deploytarget.Target {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "civokubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName("CivoKubernetesCluster")
	in := k.NewStackInput()
	if err := stackinput.Parse(data, "cluster.yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("cluster.yaml", k, in, "")
}

// Promise: failed-read-never-a-deletion
func TestAReadThatDroppedWhatTheCloudStillListsIsPutBackAndFailsTheOperation(t *testing.T) {
	listed := scan.Finding{Verdict: scan.Same}
	missing := scan.Finding{Verdict: scan.Missing}
	unasked := scan.Finding{Verdict: scan.Unjudged, Why: "list Civo's firewalls: HTTP 503"}
	engineErr := errors.New("update failed: a firewall named dev-fra1 already exists")
	tests := []struct {
		name  string
		after []apitype.ResourceV3
		typ   string // the firewall's type, when not Civo's firewall
		res   stackstate.Result
		err   error
		cloud scan.Finding
		// kept: the firewall fw-1 is in the state afterwards, before the cluster; says: what
		// the error says, none for no error.
		kept bool
		says []string
	}{
		{name: "a refresh that dropped a firewall Civo still lists keeps it and fails saying the read failed",
			after: civoStack(""), res: stackstate.Result{ReadGone: []string{firewallURN}}, cloud: listed, kept: true,
			says: []string{firewallType + " dev-fra1 (id fw-1): the read failed", "Civo still lists it", "the stack keeps it",
				"Run `clusterplane refresh cluster.yaml` again"}},
		{name: "an up that then failed on the duplicate keeps it and says both",
			after: civoStack(""), err: engineErr, cloud: listed, kept: true,
			says: []string{"the read failed", "Civo still lists it", "what the refresh did next failed: update failed"}},
		{name: "a firewall Civo could not be asked about is kept, saying why",
			after: civoStack(""), res: stackstate.Result{ReadGone: []string{firewallURN}}, cloud: unasked, kept: true,
			says: []string{"the read may have failed", "Civo could not say whether it still lists it (list Civo's firewalls: HTTP 503)"}},
		{name: "a firewall Civo no longer lists leaves the state", after: civoStack(""), res: stackstate.Result{ReadGone: []string{firewallURN}},
			cloud: missing},
		{name: "a failed operation that dropped nothing keeps its own error", after: civoStack("fw-1"), err: engineErr,
			cloud: listed, kept: true, says: []string{engineErr.Error()}},
		{name: "a firewall made again in its place is left to the user, naming the one under no stack",
			after: civoStack("fw-2"), res: stackstate.Result{ReadGone: []string{firewallURN}}, cloud: listed,
			says: []string{"made another in its place (id fw-2)", "fw-1 is left in Civo under no stack: delete it there"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &guardedStack{state: checkpoint(t, tt.after)}
			g := newReading(answering(tt.cloud)).guardReads(civoCluster(t), s, "refresh", checkpoint(t, civoStack("fw-1")))
			err := g.check(context.Background(), tt.res, tt.err)
			if got := s.state.Deployment.Resources; tt.kept != slices.ContainsFunc(got, func(r apitype.ResourceV3) bool { return r.ID == "fw-1" }) {
				t.Errorf("the state holds %v, want the firewall kept: %v", got, tt.kept)
			}
			if tt.kept {
				order := slices.IndexFunc(s.state.Deployment.Resources, func(r apitype.ResourceV3) bool { return r.URN == firewallURN }) <
					slices.IndexFunc(s.state.Deployment.Resources, func(r apitype.ResourceV3) bool { return r.URN == clusterURN })
				if !order {
					t.Errorf("the firewall is put back after the cluster that depends on it: %v", s.state.Deployment.Resources)
				}
			}
			if tt.says == nil && err != nil || tt.says != nil && err == nil {
				t.Fatalf("check = %v, want it to say %q", err, tt.says)
			}
			for _, want := range tt.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("check = %q, want it to say %q", err, want)
				}
			}
			if s.imported != nil && !tt.kept {
				t.Errorf("the state was rewritten though nothing was put back")
			}
		})
	}
}

// answering stands in for every cloud's list: whatever is asked about, the cloud answers f.
func answering(f scan.Finding) cloudLists {
	return func(deploytarget.Target) func(context.Context, scan.Resource) scan.Finding {
		return func(context.Context, scan.Resource) scan.Finding { return f }
	}
}

func TestASuccessfulOperationWhoseReadFoundNothingGoneIsNotChecked(t *testing.T) {
	s := &guardedStack{state: checkpoint(t, civoStack(""))}
	g := newReading(answering(scan.Finding{Verdict: scan.Same})).guardReads(civoCluster(t), s, "up", checkpoint(t, civoStack("fw-1")))
	if err := g.check(context.Background(), stackstate.Result{}, nil); err != nil || s.exported != 0 {
		t.Errorf("check = %v after %d exports, want nil and none", err, s.exported)
	}
}

// The cloud is asked through clusterplane's own Civo client: its list of the region's firewalls.
func TestCivoIsAskedWhetherItStillListsAFirewallTheReadDropped(t *testing.T) {
	f := fakecivo.New(t, "guard-token", "")
	t.Setenv(civo.TokenEnv, "guard-token")
	t.Setenv(civo.APIURLEnv, f.URL())
	f.Networking().SeedFirewall("fw-1", "dev-fra1", "fra1", f.DefaultNetworkID("fra1"))
	fw := func(id string) scan.Resource {
		return scan.Resource{Type: firewallType, ID: id, Outputs: map[string]any{"name": "dev-fra1", "region": "fra1"}}
	}
	tests := []struct {
		name  string
		fault *fakecloud.Fault
		id    string
		// want is what Civo says: listed (whatever its properties), missing, or unjudged.
		want string
	}{
		{name: "a firewall it lists is listed", id: "fw-1", want: "listed"},
		{name: "a firewall it lists after a 503 is listed (the list is asked again)", id: "fw-1", want: "listed",
			fault: &fakecloud.Fault{Method: "GET", Path: "/v2/firewalls", Status: http.StatusServiceUnavailable}},
		{name: "a firewall it does not list is missing", id: "fw-9", want: "missing"},
		{name: "a list that keeps failing cannot say", id: "fw-1", want: "unjudged",
			fault: &fakecloud.Fault{Method: "GET", Path: "/v2/firewalls", Status: http.StatusServiceUnavailable, For: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.Reset()
			if tt.fault != nil {
				f.Inject(*tt.fault)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			found := readrepair.CloudLists(civoCluster(t))(ctx, fw(tt.id))
			got := string(found.Verdict)
			if found.Verdict == scan.Same || found.Verdict == scan.Differs {
				got = "listed" // the guard compares no property
			}
			if got != tt.want {
				t.Errorf("Civo says %s (%s), want %s", got, found.Why, tt.want)
			}
		})
	}
}

// DigitalOcean's provider drops a cluster or a pool on a 404 alone; one it still lists (a 404 of
// an edge that has not caught up) is found in clusterplane's own list of the account's clusters.
func TestDigitalOceanIsAskedWhetherItStillListsAClusterOrPoolTheReadDropped(t *testing.T) {
	do := fakedo.New(t, "guard-token")
	t.Setenv(digitalocean.TokenEnv, "guard-token")
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	// As the provider makes a cluster: its default pool carries the tag the provider finds it by.
	id := do.SeedCluster(godo.KubernetesCluster{Name: "dev-fra1", RegionSlug: "fra1",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{dofacts.DefaultPoolTag}}}})
	cl, _ := do.Cluster(id)
	tests := []struct {
		name    string
		r       scan.Resource
		missing bool
	}{
		{name: "a cluster it lists is listed", r: scan.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", ID: id}},
		{name: "a pool it lists is listed", r: scan.Resource{Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool",
			ID: cl.NodePools[0].ID}},
		{name: "a cluster it does not list is missing", r: scan.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster",
			ID: "gone"}, missing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := readrepair.CloudLists(exampleCluster(t))(context.Background(), tt.r)
			if missing := found.Verdict == scan.Missing; missing != tt.missing || found.Verdict == scan.Unjudged {
				t.Errorf("DigitalOcean says %s (%s), want missing: %v", found.Verdict, found.Why, tt.missing)
			}
		})
	}
}

// exampleCluster is the DigitalOcean cluster example's target, as the commands read it.
func exampleCluster(t *testing.T) deploytarget.Target {
	t.Helper()
	file := filepath.Join("..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	target, err := deploytarget.Read(k, file, data, "")
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// Promise: preview-never-shows-a-failed-read-as-create
func TestAPreviewThatWouldCreateWhatTheStackHoldsFailsWhenTheCloudStillListsIt(t *testing.T) {
	create := func(urn string) stackstate.Result {
		return stackstate.Result{Steps: []stackstate.Step{{URN: urn, Action: string(apitype.OpCreate)}}}
	}
	const newURN = "urn:pulumi:dev-fra1::civokubernetescluster::clusterplane:civo:KubernetesCluster$civo:index/network:Network::dev-fra1"
	tests := []struct {
		name    string
		res     stackstate.Result
		cloud   scan.Finding
		says    []string // none: the preview stands
		exports int
	}{
		{name: "the cluster the stack holds, which Civo still lists, is a failed read, not a create",
			res: create(clusterURN), cloud: scan.Finding{Verdict: scan.Same}, exports: 1,
			says: []string{"civo:index/kubernetesCluster:KubernetesCluster dev-fra1 (id cl-1): the read failed", "Civo still lists it",
				"Run `clusterplane preview cluster.yaml` again once Civo answers"}},
		{name: "the cluster Civo could not be asked about may be a failed read, and says why",
			res: create(clusterURN), cloud: scan.Finding{Verdict: scan.Unjudged, Why: "list Civo's clusters: HTTP 503"}, exports: 1,
			says: []string{"the read may have failed", "(list Civo's clusters: HTTP 503)"}},
		{name: "the cluster Civo no longer lists is a create indeed", res: create(clusterURN), cloud: scan.Finding{Verdict: scan.Missing}, exports: 1},
		{name: "a resource the stack never held is a create, the state read once", res: create(newURN), cloud: scan.Finding{Verdict: scan.Same}, exports: 1},
		{name: "a preview that creates nothing reads no state", res: stackstate.Result{Steps: []stackstate.Step{{URN: clusterURN, Action: "update"}}},
			cloud: scan.Finding{Verdict: scan.Same}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &guardedStack{state: checkpoint(t, civoStack("fw-1"))}
			err := newReading(answering(tt.cloud)).previewReads(context.Background(), civoCluster(t), s, "preview", tt.res)
			if tt.says == nil && err != nil || tt.says != nil && err == nil {
				t.Fatalf("previewReads = %v, want it to say %q", err, tt.says)
			}
			for _, want := range tt.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("previewReads = %q, want it to say %q", err, want)
				}
			}
			if s.exported != tt.exports || s.imported != nil {
				t.Errorf("the state was read %d times (want %d), written: %t", s.exported, tt.exports, s.imported != nil)
			}
		})
	}
}
