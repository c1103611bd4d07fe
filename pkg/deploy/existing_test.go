package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// clusterRef is a DigitalOcean pool's cluster field.
func clusterRef(in proto.Message) *sharedv1.StringValueOrRef {
	return in.(*dopoolv1.DigitalOceanKubernetesNodePoolStackInput).GetTarget().GetSpec().GetCluster()
}

// cloud is a fake look-up: what the cloud holds under the manifest's name, and what it was asked.
type cloud struct {
	mu    sync.Mutex
	live  []kinds.Live
	asked int
	// resolved is what the look-up read of the manifest's cluster reference.
	resolved string
}

func (c *cloud) lookup(field string) kinds.Lookup {
	return func(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.asked++
		if field != "" {
			ref := clusterRef(in)
			v, err := resolve(ctx, ref, "cluster_id")
			if err != nil {
				return kinds.Found{}, err
			}
			c.resolved = v
		}
		return kinds.Found{Live: append([]kinds.Live(nil), c.live...)}, nil
	}
}

// Promise: up-refuses-create-the-cloud-holds
func TestUpRefusesToCreateAClusterTheCloudHoldsUnderItsNameNamingItsIdsAndTheAdoptCommand(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	fake := &cloud{live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "id-1"},
		{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "id-2"}}}
	c.Lookup = fake.lookup("")
	o := d.Up(ctx, c, deploy.UpOptions{Yes: true})
	var existing *createguard.ExistingError
	if o.Status != outcome.Blocked || !errors.As(o.Err, &existing) || len(o.Unmanaged) != 2 {
		t.Fatalf("up with two clusters of the name in the cloud: %s %v %v, want blocked naming both", o.Status, o.Err, o.Unmanaged)
	}
	for _, s := range []string{"id-1", "id-2", "region fra1", "`clusterplane adopt cluster.yaml --id ID`", "delete the others"} {
		if !strings.Contains(o.Err.Error(), s) {
			t.Errorf("%q\ndoes not say %q", o.Err, s)
		}
	}
	if calls(b, "update") != 0 || b.Has(c.Key()) {
		t.Errorf("the engine ran, or a stack was left: %v", b.Calls())
	}

	// The cloud has none: the up creates it; later ups of a stack that holds it never look again.
	fake.live = nil
	mustUp(ctx, t, d, c)
	fake.live = []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "its-own"}}
	asked := fake.asked
	if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Done || fake.asked != asked {
		t.Errorf("an up of a deployed stack: %s %v, the cloud asked %d more times, want done without asking", o.Status, o.Err, fake.asked-asked)
	}
}

func TestAFailedCreateNamesWhatItLeftInTheCloudInItsOutcomeReportAndStatus(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	b.Fail(c.Key(), "update", &stackstate.EngineError{Command: "update", Cause: "500 Internal Server Error"})
	// The cloud carried the create out before it answered 500: it holds the cluster afterwards.
	left := []kinds.Live{{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "left-1"}}
	failing := c
	failing.Lookup = func(ctx context.Context, in proto.Message, r kinds.Resolve) (kinds.Found, error) {
		if calls(b, "update") == 0 {
			return kinds.Found{}, nil // before the create
		}
		return kinds.Found{Live: left}, nil
	}
	o := d.Up(ctx, failing, deploy.UpOptions{Yes: true})
	var leftBehind *outcome.LeftBehindError
	if o.Status != outcome.Failed || !errors.As(o.Err, &leftBehind) || len(o.Unmanaged) != 1 ||
		!strings.Contains(o.Err.Error(), "500 Internal Server Error") || !strings.Contains(o.Err.Error(), "left cluster dev-fra1 in region fra1 (id left-1)") ||
		!strings.Contains(o.Err.Error(), "`clusterplane adopt cluster.yaml --id left-1`") {
		t.Fatalf("the failed create: %s %v %v, want failed naming the engine's cause, left-1 and the adopt command", o.Status, o.Err, o.Unmanaged)
	}
	data, err := json.Marshal(runreport.NewReport("up", []outcome.Outcome{o}))
	if err != nil || !strings.Contains(string(data), `"unmanaged":[{"type":"cluster","name":"dev-fra1","where":"region fra1","id":"left-1"}]`) {
		t.Errorf("the report %s does not list what was left", data)
	}
	st := d.Status(ctx, failing, deploy.StatusOptions{})
	if ready := st.Report.Condition("Ready"); ready.Reason != "LastFailed" || !strings.Contains(ready.Message, "id left-1") ||
		!strings.Contains(ready.Message, "clusterplane adopt") || len(st.Unmanaged) != 1 {
		t.Errorf("status after the failed create: %+v %v, want LastFailed naming left-1 and adopt", ready, st.Unmanaged)
	}
	// The next up is refused, and creates nothing.
	if o := d.Up(ctx, failing, deploy.UpOptions{Yes: true}); o.Status != outcome.Blocked || !strings.Contains(o.Err.Error(), "left-1") {
		t.Errorf("the next up: %s %v, want refused naming left-1", o.Status, o.Err)
	}
}

func TestAPoolsLookUpReadsItsClusterFromTheReferencedStack(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	cl := namedCluster(t, "x", "y", "")
	mustUp(ctx, t, d, cl)
	s, err := b.Open(ctx, cl.Project, cl.Stack, nil)
	if err != nil {
		t.Fatal(err)
	}
	outputs, err := s.Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := pool(t, "w", "x-y")
	fake := &cloud{live: []kinds.Live{{Type: "node pool", Name: "w", ID: "pool-1"}}}
	p.Lookup = fake.lookup("cluster")
	o := d.Up(ctx, p, deploy.UpOptions{Yes: true})
	if o.Status != outcome.Blocked || fake.resolved == "" || fake.resolved != outputs["cluster_id"].Value {
		t.Errorf("up of a pool: %s %v, resolved cluster %q, want blocked with the cluster stack's cluster_id %v",
			o.Status, o.Err, fake.resolved, outputs["cluster_id"].Value)
	}
}

// preview says what up would refuse: a create of a name the cloud holds. When another stack of the
// kind manages that resource, both name the stack, since the adopt command would refuse it.
// Promise: up-refuses-create-the-cloud-holds
func TestPreviewAndUpRefuseACreateTheCloudHoldsNamingTheStackThatManagesIt(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// live is the id the cloud holds under the manifest's name: "" for none, "managed" for the
		// cluster another stack deployed.
		live string
		want outcome.Status
		// says is what the refusal says.
		says []string
	}{
		{"the cloud holds none", "", outcome.Done, nil},
		{"made outside clusterplane", "elsewhere-1", outcome.Blocked,
			[]string{"id elsewhere-1", "which the stack does not hold", "`clusterplane adopt staging.yaml --id elsewhere-1`"}},
		{"managed by another stack", "managed", outcome.Blocked,
			[]string{"which stack digitaloceankubernetescluster/platform-prod manages", "another spec.clusterName (its name in the cloud)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			first := namedCluster(t, "platform", "prod", "")
			mustUp(ctx, t, d, first)
			id, _ := d.Status(ctx, first, deploy.StatusOptions{}).Report.Outputs["cluster_id"].(string)
			fake := &cloud{}
			switch tt.live {
			case "":
			case "managed":
				fake.live = []kinds.Live{{Type: "cluster", Name: "platform-prod", ID: id}}
			default:
				fake.live = []kinds.Live{{Type: "cluster", Name: "platform-prod", ID: tt.live}}
			}
			second := namedCluster(t, "platform", "staging", "")
			second.File, second.Lookup = "staging.yaml", fake.lookup("")
			for _, op := range []string{"preview", "up"} {
				var o outcome.Outcome
				if op == "preview" {
					o = d.Preview(ctx, second, deploy.PreviewOptions{})
				} else {
					o = d.Up(ctx, second, deploy.UpOptions{Yes: true})
				}
				if o.Status != tt.want {
					t.Fatalf("%s: %s %q %v, want %s", op, o.Status, o.Reason, o.Err, tt.want)
				}
				for _, s := range tt.says {
					if o.Err == nil || !strings.Contains(o.Err.Error(), s) {
						t.Errorf("%s: %v\ndoes not say %q", op, o.Err, s)
					}
				}
				if tt.want == outcome.Blocked && b.Has(second.Key()) {
					t.Errorf("%s left stack %s", op, second.Key())
				}
			}
			if fake.asked != 2 {
				t.Errorf("the cloud was asked %d times, want once by preview and once by up", fake.asked)
			}
			// A stack that holds its cluster is never looked for again.
			if tt.want == outcome.Done {
				if o := d.Preview(ctx, second, deploy.PreviewOptions{}); o.Status != outcome.Done || fake.asked != 2 {
					t.Errorf("preview of a deployed stack: %s, asked %d times, want done without asking", o.Status, fake.asked)
				}
			}
		})
	}
}

// A renamed manifest's preview creates its cluster under the new name and deletes the one the
// stack holds: up would not look for the cloud's own of the name, nor does preview (the effects
// table's e2e test found preview refusing it as "already held").
func TestPreviewOfARenamedManifestDoesNotLookForTheCloudsOwn(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := namedCluster(t, "platform", "prod", "")
	mustUp(ctx, t, d, c)
	k, _ := registry.Kinds().ByName(c.Name)
	renamed, err := deploytarget.Read(k, "renamed.yaml", []byte(strings.Replace(clusterText("platform", "prod"), "name: platform\n", "name: renamed\n", 1)), c.Stack)
	if err != nil {
		t.Fatal(err)
	}
	fake := &cloud{live: []kinds.Live{{Type: "cluster", Name: "platform-prod", ID: "platform-id"}}}
	renamed.Lookup = fake.lookup("")
	o := d.Preview(ctx, renamed, deploy.PreviewOptions{})
	var existing *createguard.ExistingError
	if errors.As(o.Err, &existing) || fake.asked != 0 {
		t.Errorf("preview of the renamed manifest: %s %v, the cloud asked %d times; want no look-up", o.Status, o.Err, fake.asked)
	}
}

// A look-up that could not ask the cloud (no token) lets the create go, and the outcome says so.
func TestPreviewAndUpSayWhenTheCloudWasNotAskedForOneOfTheName(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"preview", "up"} {
		t.Run(op, func(t *testing.T) {
			d, _ := deployer()
			c := cluster(t)
			c.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
				return kinds.Found{Unchecked: "no DigitalOcean API token to look with"}, nil
			}
			o := d.Preview(ctx, c, deploy.PreviewOptions{})
			if op == "up" {
				o = d.Up(ctx, c, deploy.UpOptions{Yes: true})
			}
			if want := " (not checked for an existing one of the name: no DigitalOcean API token to look with)"; o.Status != outcome.Done ||
				!strings.HasSuffix(o.Reason, want) {
				t.Errorf("%s: %s %q, want done ending %q", op, o.Status, o.Reason, want)
			}
		})
	}
}
