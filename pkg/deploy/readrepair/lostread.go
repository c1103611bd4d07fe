package readrepair

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// LostRead is a resource the engine's read of the cloud found gone that its cloud did not confirm
// gone.
type LostRead struct {
	// Type, Name and ID are the resource's Pulumi type, its name and its id in the cloud.
	Type, Name, ID string
	// Listed tells that the cloud lists it still; else the cloud could not be asked, and Why says
	// why.
	Listed bool
	Why    string
	// Replaced is the id of the resource the operation made in its place, "" when none: the
	// stack holds that one, and the cloud holds both.
	Replaced string
}

// ReadFailedError says that the engine's read of resources found them gone though their cloud
// still lists them (or could not say): the provider took a failed read for a deletion. The stack
// keeps them (those the operation made again aside), and the operation failed.
type ReadFailedError struct {
	// Operation is the command that read the cloud (up, refresh); File the manifest; Cloud the
	// cloud as messages name it.
	Operation, File, Cloud string
	Resources              []LostRead
	// Err is the engine's own failure in the same operation, nil when it succeeded otherwise.
	Err error
}

func (e *ReadFailedError) Error() string {
	var parts []string
	again := false
	for _, r := range e.Resources {
		what := fmt.Sprintf("%s %s (id %s)", r.Type, r.Name, r.ID)
		switch {
		case r.Replaced != "":
			parts = append(parts, fmt.Sprintf("%s: the read failed: the provider found it gone, yet %s still lists it, and the %s "+
				"made another in its place (id %s), which the stack now holds; %s is left in %s under no stack: delete it there",
				what, e.Cloud, e.Operation, r.Replaced, r.ID, e.Cloud))
		case r.Listed:
			again = true
			parts = append(parts, fmt.Sprintf("%s: the read failed: the provider found it gone, yet %s still lists it; the stack keeps it",
				what, e.Cloud))
		default:
			again = true
			parts = append(parts, fmt.Sprintf("%s: the read may have failed: the provider found it gone, and %s could not say "+
				"whether it still lists it (%s); the stack keeps it", what, e.Cloud, r.Why))
		}
	}
	msg := strings.Join(parts, "; ")
	if e.Err != nil {
		msg += "; what the " + e.Operation + " did next failed: " + e.Err.Error()
	}
	if again {
		msg += fmt.Sprintf(". Run `clusterplane %s %s` again once %s answers", e.Operation, e.File, e.Cloud)
	}
	return msg
}

// DescribeLost names the resources, "type name (id)" each.
func DescribeLost(lost []LostRead) string {
	names := make([]string, len(lost))
	for i, r := range lost {
		names[i] = fmt.Sprintf("%s %s (%s)", r.Type, r.Name, r.ID)
	}
	return strings.Join(names, ", ")
}

// CloudName is t's cloud as messages name it ("Civo"), "the cloud" when it has none.
func CloudName(t deploytarget.Target) string {
	if c, _, _, ok := stackinput.ProviderConfig(t.Input); ok {
		return c.Name
	}
	return "the cloud"
}

// DroppedByRead are the cloud resources of before that after no longer holds with the same id,
// and that no step of the operation deleted, replaced or forgot on purpose: what a read of the
// cloud dropped, whether the operation then made it again (another id) or not.
func DroppedByRead(before, after stackstate.State, steps []stackstate.Step) []apitype.ResourceV3 {
	held := map[resource.URN]map[resource.ID]bool{}
	for _, r := range after.Deployment.Resources {
		if held[r.URN] == nil {
			held[r.URN] = map[resource.ID]bool{}
		}
		held[r.URN][r.ID] = true
	}
	meant := map[string]bool{}
	for _, s := range steps {
		if s.IsAction(apitype.OpDelete, apitype.OpDeleteReplaced, apitype.OpReplace, apitype.OpCreateReplacement,
			apitype.OpReadDiscard, apitype.OpDiscardReplaced, apitype.OpRemovePendingReplace) {
			meant[s.URN] = true
		}
	}
	var out []apitype.ResourceV3
	for _, r := range before.Deployment.Resources {
		switch {
		case !r.Custom || r.ID == "" || r.Delete || r.External || strings.HasPrefix(string(r.Type), "pulumi:providers:"):
		case held[r.URN][r.ID], meant[string(r.URN)]:
		default:
			out = append(out, r)
		}
	}
	return out
}

// CloudLists asks t's cloud, through clusterplane's own client, whether it lists a resource: one
// list of its clusters (and, for Civo, of the region's firewalls), shared by every resource asked
// about. Without a token, the cloud cannot be asked.
func CloudLists(t deploytarget.Target) func(ctx context.Context, r scan.Resource) scan.Finding {
	s := scan.New()
	cloud, base, token := stackinput.CloudAPI(t.Input)
	return func(ctx context.Context, r scan.Resource) scan.Finding {
		if token == "" {
			return scan.Finding{Verdict: scan.Unjudged, Why: "no token to ask " + CloudName(t) + " with"}
		}
		return s.Judge(ctx, scan.Account{Cloud: cloud, Base: base, Token: token}, r)
	}
}

// PutBackEntries is after with the entries before held of the lost resources put back, each as it
// was, where the operation made nothing in its place: right after the last entry it depends on
// (its parent, provider and dependencies), so that the state stays in the engine's order. Every
// other entry and field of after is kept as it is.
func PutBackEntries(before, after stackstate.State, lost []LostRead) (stackstate.State, error) {
	wanted := map[string]bool{}
	for _, l := range lost {
		if l.Replaced == "" {
			wanted[l.Type+"\x00"+l.ID] = true
		}
	}
	var deployment map[string]json.RawMessage
	var beforeRaw, resources []json.RawMessage
	if err := json.Unmarshal(after.Raw.Deployment, &deployment); err != nil {
		return stackstate.State{}, errors.Wrap(err, "read the stack's state")
	}
	if err := stackstate.UnmarshalIfAny(deployment["resources"], &resources); err != nil {
		return stackstate.State{}, err
	}
	var old map[string]json.RawMessage
	if err := json.Unmarshal(before.Raw.Deployment, &old); err != nil {
		return stackstate.State{}, errors.Wrap(err, "read the stack's state")
	}
	if err := stackstate.UnmarshalIfAny(old["resources"], &beforeRaw); err != nil {
		return stackstate.State{}, err
	}
	if len(beforeRaw) != len(before.Deployment.Resources) || len(resources) != len(after.Deployment.Resources) {
		return stackstate.State{}, errors.New("read the stack's state: its resources were not read alike twice")
	}
	order := make([]resource.URN, len(after.Deployment.Resources))
	for i, r := range after.Deployment.Resources {
		order[i] = r.URN
	}
	for i, r := range before.Deployment.Resources {
		if !wanted[string(r.Type)+"\x00"+string(r.ID)] {
			continue
		}
		at := 0
		for _, dep := range dependsOn(r) {
			j := slices.Index(order, dep)
			if j < 0 {
				return stackstate.State{}, errors.Errorf("put back %s: the state no longer holds %s, which it depends on", r.URN, dep)
			}
			at = max(at, j+1)
		}
		resources = slices.Insert(resources, at, beforeRaw[i])
		order = slices.Insert(order, at, r.URN)
	}
	var err error
	if deployment["resources"], err = json.Marshal(resources); err != nil {
		return stackstate.State{}, err
	}
	raw := after.Raw
	if raw.Deployment, err = json.Marshal(deployment); err != nil {
		return stackstate.State{}, err
	}
	return stackstate.StateOf(raw)
}

// dependsOn are the URNs an entry of the state must come after: its parent, its provider and
// its dependencies.
func dependsOn(r apitype.ResourceV3) []resource.URN {
	var out []resource.URN
	if r.Parent != "" {
		out = append(out, r.Parent)
	}
	if r.Provider != "" {
		// A provider reference is the provider's URN, "::", its id.
		if i := strings.LastIndex(r.Provider, "::"); i > 0 {
			out = append(out, resource.URN(r.Provider[:i]))
		}
	}
	out = append(out, r.Dependencies...)
	for _, deps := range r.PropertyDependencies {
		out = append(out, deps...)
	}
	if r.DeletedWith != "" {
		out = append(out, r.DeletedWith)
	}
	return out
}
