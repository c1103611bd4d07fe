// Package kinds is what every part of clusterplane knows of a kind, the same for all four: its
// names, its stack input, its offline commands, its stack program, its component, its table of
// change effects and how to look for what its create would duplicate. Each kind lives in its own
// folder (iac/pulumi/<kind>/entry) and the list of them exists once (iac/pulumi/registry); pkg/
// takes kinds as values, so that it never imports iac/.
package kinds

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is one kind with its stack-input type erased.
type Kind struct {
	// Name is the manifest kind, e.g. "DigitalOceanKubernetesCluster"; Project its stacks' Pulumi
	// project, which is also its program's folder under iac/pulumi and binary's name: the kind in
	// lower case. Short names the kind in Kubernetes names (the operator export), e.g.
	// "do-cluster".
	Name, Project, Short string
	// NewStackInput returns an empty stack input of the kind.
	NewStackInput func() proto.Message
	// Offline is what the offline commands (validate, plan, diff) run for the kind.
	Offline program.Offline
	// Resources is the kind's stack program for a valid stack input (the module's Resources).
	Resources func(ctx *pulumi.Context, stackInput proto.Message) error
	// Effects is what changing each field of the manifest does.
	Effects *effects.Table
	// Component is what the plugin constructs for the kind; Customs are the custom resources
	// the plugin manages for it (the Civo node pool).
	Component componentprovider.Component
	Customs   []componentprovider.Custom
	// Lookup finds what a create of the kind would duplicate; nil looks for nothing.
	Lookup Lookup
	// ReadyImport readies a live resource for adopt's import where the kind's provider needs it;
	// nil needs nothing.
	ReadyImport ReadyImport
	// ImportsWith names what the kind's module makes beside a live resource that adopt imports
	// with it; nil names nothing.
	ImportsWith ImportsWith
	// Rotate readies a rotation of the kind's pool for up; nil when up does not rotate the kind.
	Rotate Rotate
	// Cost is what the kind's operations ask of its cloud's rate limit (pkg/deploy paces adopt,
	// drift and refresh by it); nil when its cloud states no limit.
	Cost *Cost
	// Nodes names the stack output that lists a pool's nodes, one entry a node; "" for a kind
	// whose outputs list none (a cluster).
	Nodes string
}

// Cost is what an operation on a stack of a kind is estimated to send its cloud, against the
// cloud's limit per token. Each estimate takes the clusters the account holds: the providers'
// imports of some resources read the whole account's list, and the modules' look-ups by name
// read the run's one list of it (package runlist), which the run makes once for all its stacks.
type Cost struct {
	// Cloud names the cloud whose token the requests count against, e.g. "digitalocean".
	Cloud string
	// PerMinute is the cloud's limit: requests a minute per token.
	PerMinute int
	// Adopt estimates one adopt (its preview and its up, each importing).
	Adopt Estimate
	// Refresh estimates one drift (a refreshing preview) or one refresh; its Lists is the
	// drift's look-up by name, which a refresh, running no program, does not make
	// (queue.RefreshingByID).
	Refresh Estimate
	// List estimates the run's one list of the account's clusters: made at the first look-up by
	// name of any of the run's stacks, then shared by every later one until a stack creates
	// something (package runlist).
	List func(clusters int) int
}

// Estimate is what one operation on one stack sends its cloud.
type Estimate struct {
	// Own is the requests the operation sends for its stack alone.
	Own func(clusters int) int
	// Lists tells that the operation looks its stack up by name in the run's list of the
	// account (Cost.List), which the stack's Own does not count.
	Lists bool
}

// Of is the Kind of a program: own, which holds what is the kind's own (Short, Component, Customs,
// Lookup…), with the fields the program gives set from it.
func Of[T proto.Message](p program.Program[T], own Kind) Kind {
	own.Name = p.Kind()
	own.Project = p.Name
	own.NewStackInput = func() proto.Message { return p.NewInput() }
	own.Offline = p
	own.Resources = func(ctx *pulumi.Context, in proto.Message) error { return p.Resources(ctx, in.(T)) }
	own.Effects = p.Effects()
	return own
}

// StackInput is the descriptor of the kind's stack input.
func (k Kind) StackInput() protoreflect.MessageDescriptor {
	return k.NewStackInput().ProtoReflect().Descriptor()
}

// APIVersion is the apiVersion every manifest of the kind carries, as its proto's rule fixes it.
func (k Kind) APIVersion() string {
	return rules.Field(Manifest(k.StackInput()).Fields().ByJSONName(kindfield.TargetApiVersion)).GetString().GetConst()
}

// Manifest returns the manifest message a stack input deploys: its target.
func Manifest(stackInput protoreflect.MessageDescriptor) protoreflect.MessageDescriptor {
	return stackInput.Fields().ByJSONName(kindfield.StackInputTarget).Message()
}

// List is the kinds clusterplane serves, in the order the docs list them.
type List []Kind

// ByName returns the kind named name: its kind or its program name, in any case.
func (l List) ByName(name string) (Kind, bool) {
	for _, k := range l {
		if strings.EqualFold(k.Name, name) || strings.EqualFold(k.Project, name) {
			return k, true
		}
	}
	return Kind{}, false
}

// Names are the kinds' manifest kinds.
func (l List) Names() []string {
	out := make([]string, len(l))
	for i, k := range l {
		out[i] = k.Name
	}
	return out
}

// StackInputs are the kinds' stack-input descriptors.
func (l List) StackInputs() []protoreflect.MessageDescriptor {
	out := make([]protoreflect.MessageDescriptor, len(l))
	for i, k := range l {
		out[i] = k.StackInput()
	}
	return out
}

// Tables are the kinds' effects tables.
func (l List) Tables() []*effects.Table {
	out := make([]*effects.Table, len(l))
	for i, k := range l {
		out[i] = k.Effects
	}
	return out
}

// Table is the effects table of the kind named name; nil when no kind is.
func (l List) Table(name string) *effects.Table {
	if k, ok := l.ByName(name); ok {
		return k.Effects
	}
	return nil
}

// Components are the plugin's view of the kinds.
func (l List) Components() []componentprovider.Component {
	out := make([]componentprovider.Component, len(l))
	for i, k := range l {
		out[i] = k.Component
	}
	return out
}

// Customs are the custom resources the plugin manages for the kinds.
func (l List) Customs() []componentprovider.Custom {
	var out []componentprovider.Custom
	for _, k := range l {
		out = append(out, k.Customs...)
	}
	return out
}

// Live is a cluster or node pool the cloud holds.
type Live struct {
	// Type is "cluster" or "node pool"; Where says where it is ("region fra1", "cluster ID").
	Type  string `json:"type"`
	Name  string `json:"name"`
	Where string `json:"where,omitempty"`
	// ID is the id `clusterplane adopt --id` takes (a Civo pool's is CLUSTER_ID:POOL_NAME).
	ID string `json:"id"`
	// Tags are its tags in the cloud, where the look-up reads them: a stack's mark among them
	// (package stackmark) tells what the stack's own create made.
	Tags []string `json:"-"`
}

// Listed is one cluster or pool a look-up's list found: its id and its tags (none where the
// cloud keeps no tags on it).
type Listed struct {
	ID   string
	Tags []string
}

// Found is what a look-up found under a manifest's name.
type Found struct {
	Live []Live
	// Unchecked says why nothing was looked for, "" when it was: no API token to ask with (the
	// engine will say so), a pool whose cluster's stack has no id yet.
	Unchecked string
}

// NoToken is what a look-up found when it had no API token of cloud ("Civo", "DigitalOcean")
// to look with.
func NoToken(cloud string) Found {
	return Found{Unchecked: "no " + cloud + " API token to look with"}
}

// NoClusterYet is what a pool's look-up found when its cluster is not there yet.
var NoClusterYet = Found{Unchecked: "its cluster's id is not known yet (the referenced stack has no cluster_id output)"}

// Resolve reads a StringValueOrRef: its value, or the output of the stack its valueFrom names
// ("" when that stack does not exist or has no such output).
type Resolve func(ctx context.Context, ref *sharedv1.StringValueOrRef, defaultOutput string) (string, error)

// ReadyImport readies the live resource id for its import as the stack input's kind, changing
// only what the provider needs to import it; it says what it changed, the zero Readied for
// nothing.
type ReadyImport func(ctx context.Context, stackInput proto.Message, id string) (Readied, error)

// ImportsWith is, for the live resource id that adopt imports as the stack input's kind, the
// other resources the kind's module makes that the cloud already holds for it, by resource type
// ("civo:index/firewall:Firewall") and id: a Civo cluster's firewall the module made, which the
// module would otherwise create again beside it. None for a manifest that names them itself.
type ImportsWith func(ctx context.Context, stackInput proto.Message, id string) (map[string]string, error)

// Readied is what a ReadyImport changed in the cloud: Said in a sentence for the resource's own
// line ("pool P was tagged T, which the provider imports the default pool by"), and for the
// fleet's summary, which counts them, Thing, what was changed ("pool"), and Change, how ("tagged
// terraform:default-node-pool"). Adopt's only change in the cloud, said wherever it says it
// changed nothing else.
type Readied struct {
	Said   string `json:"said"`
	Thing  string `json:"thing"`
	Change string `json:"change"`
}

// Lookup finds the clusters or node pools a create of the kind would duplicate: of its name,
// where the manifest puts it (a region, a cluster), in the cloud its provider config (or the
// environment) names, as the modules would reach it.
type Lookup func(ctx context.Context, stackInput proto.Message, resolve Resolve) (Found, error)

// Schema is the kinds as the plugin's Pulumi schema describes them.
func (l List) Schema() []pulumischema.Component {
	out := make([]pulumischema.Component, len(l))
	for i, k := range l {
		var customs []string
		for _, c := range k.Customs {
			customs = append(customs, c.Token)
		}
		out[i] = pulumischema.ComponentOf(k.StackInput(), customs...)
	}
	return out
}

// Output is one stack output of a kind: its name as the stack exports it (cluster_id), and
// whether the kind's API marks it secret (debug_redact).
type Output struct {
	Name   string
	Secret bool
}

// Outputs are the stack outputs the kind's API declares, in the order it declares them: the
// fields of its manifest's status.outputs. A kind without that message has none.
func (k Kind) Outputs() []Output {
	outputs := protofield.DescriptorAt(k.StackInput(), kindfield.StackInputTarget, kindfield.TargetStatus, kindfield.StatusOutputs)
	if outputs == nil {
		return nil
	}
	fields := outputs.Fields()
	out := make([]Output, fields.Len())
	for i := range fields.Len() {
		out[i] = Output{Name: string(fields.Get(i).Name()), Secret: rules.Secret(fields.Get(i))}
	}
	return out
}

// Search is what a kind's create look-up asks its cloud for: resources of Type named Name, In a
// place (for the error: "fra1", "cluster ID"), found Where ("region fra1", "cluster ID").
type Search struct {
	Type, Name, In, Where string
}

// Look is what the search found: the live resources of the ids list gives, NoToken's Found when
// list has no token to ask with, or list's error saying what was looked for. The four kinds'
// look-ups differ only in how they ask their cloud, which is list.
func (s Search) Look(list func() ([]Listed, error)) (Found, error) {
	listed, err := list()
	// Without a token the look-up is left to the engine, which says the token is missing.
	var noToken cloudapi.NoTokenError
	if errors.As(err, &noToken) {
		return NoToken(noToken.Cloud), nil
	}
	if err != nil {
		return Found{}, errors.Wrapf(err, "look for a %s %s in %s before creating one", s.Type, s.Name, s.In)
	}
	var found Found
	for _, l := range listed {
		found.Live = append(found.Live, Live{Type: s.Type, Name: s.Name, Where: s.Where, ID: l.ID, Tags: l.Tags})
	}
	return found, nil
}

// LookForPool is Look for a node pool in the cluster ref names, read through resolve (from its
// stack's output unless ref names another): list is given that cluster's id. While the cluster
// is not known (not created yet), no pool can be in it, and the search is left unchecked
// (NoClusterYet), so that both pools' look-ups share that rule.
func (s Search) LookForPool(ctx context.Context, resolve Resolve, ref *sharedv1.StringValueOrRef, output string,
	list func(cluster string) ([]Listed, error)) (Found, error) {
	cluster, err := resolve(ctx, ref, output)
	if err != nil || cluster == "" {
		return NoClusterYet, err
	}
	s.Type, s.In, s.Where = "node pool", "cluster "+cluster, "cluster "+cluster
	return s.Look(func() ([]Listed, error) { return list(cluster) })
}
