package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/civoeffects"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/doeffects"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// planned are the inputs the target's module registers for its resource of type typ, as a fresh
// preview plans them: the live resource of a cloud that matches the manifest exactly.
func planned(t *testing.T, target deploytarget.Target, typ string) map[string]any {
	t.Helper()
	d, _ := deployer()
	o := d.Preview(context.Background(), target, deploy.PreviewOptions{})
	if o.Result == nil {
		t.Fatalf("preview: %s %v", o.Status, o.Err)
	}
	for _, s := range o.Result.Steps {
		if s.Type == typ {
			// A copy through JSON, as the engine's values are: numbers read as float64.
			data, err := json.Marshal(s.New)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			if err := json.Unmarshal(data, &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("the preview plans no %s: %+v", typ, o.Result.Steps)
	return nil
}

// set sets a dotted property of inputs.
func set(inputs map[string]any, path string, value any) {
	parts := strings.Split(path, ".")
	m := inputs
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	m[parts[len(parts)-1]] = value
}

// adoptKind is one kind's adoption case: its manifest, the type it imports, a property whose
// difference replaces the resource (or is refused) and one the provider changes in place, each
// with the manifest field behind it and the values the live resource has.
type adoptKind struct {
	name, text, typ string
	// blocking: the property, the live value, the manifest field, the manifest's value.
	blockProp  string
	blockLive  any
	blockField string
	blockValue any
	// inPlace: the property, the live value and the manifest field.
	placeProp  string
	placeLive  any
	placeField string
}

func adoptKinds(t *testing.T) []adoptKind {
	unprotected := func(rel string) string {
		return strings.Replace(manifest(t, rel), "\nspec:\n", "\nspec:\n  deletionProtection: false\n", 1)
	}
	return []adoptKind{
		{name: "a DigitalOcean cluster", text: unprotected("digitaloceankubernetescluster/minimal.yaml"), typ: clusterType,
			blockProp: "region", blockLive: "ams3", blockField: "spec.region", blockValue: "fra1",
			placeProp: "tags", placeLive: []any{}, placeField: "spec.tags"},
		{name: "a DigitalOcean node pool", text: manifest(t, "digitaloceankubernetesnodepool/minimal.yaml"),
			typ:       doeffects.DOPoolTypes[effects.NodePool],
			blockProp: "size", blockLive: "s-1vcpu-2gb", blockField: "spec.size", blockValue: "s-4vcpu-8gb",
			placeProp: "tags", placeLive: []any{"k8s-made-elsewhere"}, placeField: "spec.tags"},
		{name: "a Civo cluster", text: unprotected("civokubernetescluster/minimal.yaml"), typ: civoeffects.CivoTypes[effects.Cluster],
			blockProp: "region", blockLive: "lon1", blockField: "spec.region", blockValue: "fra1",
			placeProp: "tags", placeLive: "", placeField: "spec.tags"},
		{name: "a Civo node pool", text: manifest(t, "civokubernetesnodepool/minimal.yaml"), typ: civoeffects.CivoPoolTypes[effects.NodePool],
			blockProp: "size", blockLive: "g4s.kube.large", blockField: "spec.size", blockValue: "g4s.kube.medium",
			placeProp: "nodeCount", placeLive: float64(3), placeField: "spec.nodeCount"},
	}
}

func find(found []outcome.Disagreement, field string) (outcome.Disagreement, bool) {
	for _, d := range found {
		if d.Field == field {
			return d, true
		}
	}
	return outcome.Disagreement{}, false
}

// Promise: adopt-blocks-on-replacing-difference
func TestAdoptOfEachKindBlocksOnAReplacingFieldNamingBothValuesTheRightWayRoundAndTakesInPlaceOnes(t *testing.T) {
	ctx := context.Background()
	for _, k := range adoptKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			tg := target(t, "manifest.yaml", k.text)
			matching := planned(t, tg, k.typ)

			// A replacing difference blocks, naming the field, the manifest's value and the cloud's.
			d, b := deployer()
			live := planned(t, tg, k.typ)
			set(live, k.blockProp, k.blockLive)
			set(live, k.placeProp, k.placeLive)
			b.Live("id-1", live)
			o := d.Adopt(ctx, tg, "id-1", deploy.AdoptOptions{})
			got, ok := find(o.Disagreements, k.blockField)
			if o.Status != outcome.Blocked || !ok || got.Manifest != k.blockValue || got.Live != k.blockLive || !got.Effect.Blocks() {
				t.Errorf("adopt with %s %v in the cloud: %s %+v, want blocked on %s: manifest %v, live %v",
					k.blockProp, k.blockLive, o.Status, o.Disagreements, k.blockField, k.blockValue, k.blockLive)
			}
			if _, listed := find(o.InPlace, k.placeField); !listed {
				t.Errorf("the in-place difference %s is not listed beside the blocking one: %+v", k.placeField, o.InPlace)
			}
			if b.Has(tg.Key()) || calls(b, "update") != 0 {
				t.Errorf("a refused adoption left its stack or deployed: %v", b.Calls())
			}

			// An in-place difference alone does not block: the adoption lists it for the next up.
			d, b = deployer()
			live = planned(t, tg, k.typ)
			set(live, k.placeProp, k.placeLive)
			b.Live("id-2", live)
			o = d.Adopt(ctx, tg, "id-2", deploy.AdoptOptions{})
			got, ok = find(o.InPlace, k.placeField)
			if o.Status != outcome.Done || len(o.Disagreements) != 0 || !ok || fmt.Sprint(got.Live) != fmt.Sprint(k.placeLive) ||
				got.Effect.Blocks() || !b.Has(tg.Key()) {
				t.Errorf("adopt with only %s differing: %s %q %+v / %+v, want adopted listing %s in place",
					k.placeProp, o.Status, o.Reason, o.Disagreements, o.InPlace, k.placeField)
			}

			// --exact blocks on it.
			d, b = deployer()
			b.Live("id-3", live)
			o = d.Adopt(ctx, tg, "id-3", deploy.AdoptOptions{Exact: true})
			if _, ok := find(o.Disagreements, k.placeField); o.Status != outcome.Blocked || !ok || b.Has(tg.Key()) {
				t.Errorf("adopt --exact with %s differing: %s %+v, want blocked on %s", k.placeProp, o.Status, o.Disagreements, k.placeField)
			}

			// A cloud that matches the manifest is adopted with nothing to change.
			d, b = deployer()
			b.Live("id-4", matching)
			if o := d.Adopt(ctx, tg, "id-4", deploy.AdoptOptions{Exact: true}); o.Status != outcome.Done || len(o.InPlace) != 0 {
				t.Errorf("adopt of a matching resource: %s %q %+v", o.Status, o.Reason, o.InPlace)
			}
		})
	}
}

func TestAdoptSaysDisableSurgeUpgradeAsTheManifestSpellsItNotAsTheSurgeUpgradeItIsSentAs(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		manifest string // the spec line added
		surge    bool   // the cloud's surge_upgrade
		want     outcome.Disagreement
		blocked  bool
	}{
		{"unset, on a cluster made without surge upgrades, turns them on in place", "", false,
			outcome.Disagreement{Field: "spec.disableSurgeUpgrade", Manifest: false, Live: true, Effect: effects.Update}, false},
		{"true, on a cluster with surge upgrades, is refused: the provider never sends false", "  disableSurgeUpgrade: true\n", true,
			outcome.Disagreement{Field: "spec.disableSurgeUpgrade", Manifest: true, Live: false, Effect: effects.Refused}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := cluster(t, "\nspec:\n", "\nspec:\n"+tt.manifest)
			live := planned(t, tg, clusterType)
			set(live, "surgeUpgrade", tt.surge)
			d, b := deployer()
			b.Live("id", live)
			o := d.Adopt(ctx, tg, "id", deploy.AdoptOptions{})
			all := append(append([]outcome.Disagreement(nil), o.Disagreements...), o.InPlace...)
			got, ok := find(all, tt.want.Field)
			if !ok || got.Manifest != tt.want.Manifest || got.Live != tt.want.Live || got.Effect != tt.want.Effect ||
				(o.Status == outcome.Blocked) != tt.blocked {
				t.Errorf("%s %+v, want %+v (blocked %t)", o.Status, all, tt.want, tt.blocked)
			}
		})
	}
}

// A version the module refuses while the engine previews the import (older than the one the
// cluster runs) is a disagreement like the others: adopt lists it as manifest against live with
// the module's words, adopts nothing and leaves no stack, as for a replacing field.
// Promise: adopt-blocks-on-replacing-difference
func TestAdoptOfAClusterRunningANewerVersionListsTheVersionAsARefusedDisagreement(t *testing.T) {
	ctx := context.Background()
	tg := cluster(t)
	d, b := deployer()
	b.Live("id-1", planned(t, tg, clusterType))
	refusal := &kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31.1-do.5", Live: "1.33.1-do.0",
		Cloud: "DigitalOcean", Want: "1.33.1-do.0"}
	tg.Kind.Resources = func(*pulumi.Context, proto.Message) error { return refusal }
	o := d.Adopt(ctx, tg, "id-1", deploy.AdoptOptions{})
	got, ok := find(o.Disagreements, "spec.kubernetesVersion")
	if o.Status != outcome.Blocked || !ok || got.Manifest != "1.31.1-do.5" || got.Live != "1.33.1-do.0" || got.Effect != effects.Refused ||
		!strings.Contains(got.Reason, "Set kubernetesVersion to 1.33.1-do.0 or a later version") {
		t.Errorf("adopt of a cluster at 1.33.1-do.0 with a manifest at 1.31.1-do.5: %s %v %+v, want blocked on "+
			"spec.kubernetesVersion: manifest 1.31.1-do.5, live 1.33.1-do.0 (refused), with the module's words", o.Status, o.Err, o.Disagreements)
	}
	if b.Has(tg.Key()) || calls(b, "update") != 0 {
		t.Errorf("a refused adoption left its stack or deployed: %v", b.Calls())
	}
}

// talkative is a backend whose stacks' previews say what the engine says of a program that
// failed, as its progress: its Diagnostics.
type talkative struct{ stackstate.Backend }

var _ stackstate.Backend = talkative{}

func (b talkative) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Open(ctx, project, stack, program)
	return talkativeStack{s}, err
}

func (b talkative) Create(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Create(ctx, project, stack, program)
	return talkativeStack{s}, err
}

type talkativeStack struct{ stackstate.Stack }

func (s talkativeStack) Preview(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	res, err := s.Stack.Preview(ctx, o)
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "Previewing update (dev-fra1):\nDiagnostics:\n  pulumi:pulumi:Stack (dev-fra1):\n    error: an unhandled error occurred: %v\n", err)
	}
	return res, err
}

// The engine's words for a version the module refuses (its Diagnostics, "an unhandled error
// occurred") are not shown above adopt's own: adopt says the refusal as a disagreement. The
// preview's progress of an adoption that goes on is shown.
func TestAdoptShowsNotTheEnginesDiagnosticsOfAVersionTheModuleRefusesButShowsOtherProgress(t *testing.T) {
	ctx := context.Background()
	for _, refused := range []bool{true, false} {
		t.Run(fmt.Sprintf("refused %t", refused), func(t *testing.T) {
			tg := cluster(t)
			live := planned(t, tg, clusterType)
			b := deploytest.New()
			var progress strings.Builder
			d := &deploy.Deployer{Backend: talkative{b}, Progress: func(deploytarget.Target) io.Writer { return &progress }}
			b.Live("id-1", live)
			if refused {
				tg.Kind.Resources = func(*pulumi.Context, proto.Message) error {
					return &kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31.1-do.5", Live: "1.33.1-do.0",
						Cloud: "DigitalOcean", Want: "1.33.1-do.0"}
				}
			}
			o := d.Adopt(ctx, tg, "id-1", deploy.AdoptOptions{})
			if shown := strings.Contains(progress.String(), "Diagnostics:"); shown == refused || (o.Status == outcome.Blocked) != refused {
				t.Errorf("adopt %s; the engine's progress shown %t, want %t:\n%s", o.Status, shown, !refused, progress.String())
			}
		})
	}
}

// An adopt of a Civo cluster takes into the stack, with the cluster, the firewall its module made
// for it (kinds.ImportsWith), so that no create of a second firewall of the cluster's name
// follows; without one named, the module's firewall is created as before.
// Promise: adopt-takes-the-civo-firewall-the-module-made
func TestAdoptTakesTheFirewallTheModuleMadeBesideTheCluster(t *testing.T) {
	ctx := context.Background()
	firewallType := civoeffects.CivoTypes[effects.Firewall]
	text := strings.Replace(manifest(t, "civokubernetescluster/minimal.yaml"), "\nspec:\n", "\nspec:\n  deletionProtection: false\n", 1)
	tests := []struct {
		name         string
		also         map[string]string
		wantFirewall string
		// wantCreates counts the firewalls the adoption creates.
		wantCreates int
	}{
		{name: "the module's firewall is imported with the cluster", also: map[string]string{firewallType: "fw-1"}, wantFirewall: "fw-1"},
		{name: "none named: the module creates its own", wantCreates: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			tg := target(t, "cluster.yaml", text)
			tg.ImportsWith = func(context.Context, proto.Message, string) (map[string]string, error) { return tt.also, nil }
			b.Live("id-1", planned(t, tg, civoeffects.CivoTypes[effects.Cluster]))
			b.Live("fw-1", planned(t, tg, firewallType))
			o := d.Adopt(ctx, tg, "id-1", deploy.AdoptOptions{})
			if o.Status != outcome.Done || o.Result == nil {
				t.Fatalf("adopt: %s %v, want done", o.Status, o.Err)
			}
			creates := 0
			for _, step := range o.Result.Steps {
				if step.Type == firewallType && step.Action == "create" {
					creates++
				}
			}
			if creates != tt.wantCreates {
				t.Errorf("adopt created %d firewalls, want %d", creates, tt.wantCreates)
			}
			ids, _ := stateOf(ctx, t, b, tg).IDs(firewallType)
			if tt.wantFirewall != "" && (len(ids) != 1 || ids[0] != tt.wantFirewall) {
				t.Errorf("the stack holds firewalls %v, want %s alone", ids, tt.wantFirewall)
			}
		})
	}
}
