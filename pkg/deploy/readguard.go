package deploy

import (
	"context"
	"slices"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// reading is what every operation that reads the cloud does after the read: check what a refresh
// or a preview's read found gone before the engine drops it from the state. It holds only how to
// ask a target's cloud whether it still lists a resource (lists).
type reading struct{ lists cloudLists }

// cloudLists is, for a target, how to ask its cloud whether it still lists a resource: the
// clouds' own lists (readrepair.CloudLists) in a run, a fixed answer in a test.
type cloudLists func(t deploytarget.Target) func(ctx context.Context, r scan.Resource) scan.Finding

// newReading is the reading step that asks the cloud through lists.
func newReading(lists cloudLists) reading {
	return reading{lists: lists}
}

// Why a read of the cloud is checked before its verdict "deleted" is kept: the pinned providers
// take some failed reads for a deleted resource, and the engine then drops the resource from the
// stack's state for good. Every later up tries to create it again (Civo refuses the duplicate
// name) and the resource stays in the cloud, managed by no stack.
//
//   - Civo (terraform-provider-civo v1.1.4, which pulumi-civo v2.4.8 wraps) clears the id on any
//     error whose answer is nil: resourceFirewallRead (civo/firewall/resource_firewall.go), after
//     FindFirewall, which lists the region's firewalls and answers nil on every error of that
//     list, a 503 as a 404; resourceKubernetesClusterRead
//     (civo/kubernetes/resource_kubernetes_cluster.go) after GetKubernetesCluster, and
//     resourceKubernetesClusterNodePoolRead (resource_kubernetes_cluster_nodepool.go), alike.
//   - DigitalOcean (terraform-provider-digitalocean v2.75.0) clears it only on a 404:
//     resourceDigitalOceanKubernetesClusterRead (digitalocean/kubernetes/resource_kubernetes_cluster.go)
//     and resourceDigitalOceanKubernetesNodePoolRead (resource_kubernetes_node_pool.go). Other
//     errors fail the read. A 404 the API answers for a cluster it still has (a read right after
//     a create, an edge that has not caught up) is dropped all the same.
//   - clusterplane's own Civo node pool (iac/pulumi/civokubernetesnodepool/poolresource) fails its read on an error.
//
// So after an up or a refresh that read the cloud, every resource the read dropped is looked up
// in its cloud's list through clusterplane's own client (package scan, over pkg/cloud/civo and
// pkg/cloud/digitalocean). One the cloud still lists, or that the cloud could not be asked about,
// is put back into the state as it was, and the operation fails saying the read failed. Only a
// resource the cloud no longer lists (deleted outside clusterplane) leaves the state, as before.

// readGuard checks one stack's engine operations that read the cloud into its state (an up that
// refreshes, a refresh) against the state before each.
type readGuard struct {
	// reading asks the cloud about what a read dropped.
	reading reading
	t       deploytarget.Target
	s       stackstate.Stack
	op      string
	// before is the state the next operation starts from.
	before stackstate.State
}

// guardReads is the guard of operation op (the command's name) on t's stack, whose state is now
// before.
func (d reading) guardReads(t deploytarget.Target, s stackstate.Stack, op string, before stackstate.State) *readGuard {
	return &readGuard{reading: d, t: t, s: s, op: op, before: before}
}

// refreshGuarded refreshes s, the state read first, and checks what the refresh's read dropped
// (check): op is the command it runs in, for the message. The lists of inputs the refresh
// re-paired are put back (keepListInputs).
func (d reading) refreshGuarded(ctx context.Context, t deploytarget.Target, s stackstate.Stack, op string, o stackstate.Options) (stackstate.Result, error) {
	before, err := s.State(ctx)
	if err != nil {
		return stackstate.Result{}, err
	}
	res, err := s.Refresh(ctx, o)
	if err = d.guardReads(t, s, op, before).check(ctx, res, err); err != nil {
		return res, err
	}
	return res, readrepair.KeepListInputs(ctx, s, before)
}

// check is called with an operation's result and error once the engine is done: it puts back
// what a read dropped that the cloud does not confirm gone, and then fails the operation with a
// *ReadFailedError. Otherwise it returns err. A successful operation whose events say no read
// found anything gone costs nothing; a failed one is always checked (its events may be cut short).
func (g *readGuard) check(ctx context.Context, res stackstate.Result, err error) error {
	if err == nil && len(res.ReadGone) == 0 {
		return nil
	}
	after, xerr := g.s.State(ctx)
	if xerr != nil {
		if err != nil {
			return err
		}
		return errors.Wrap(xerr, "check what the engine's read of the cloud dropped from the stack")
	}
	dropped := readrepair.DroppedByRead(g.before, after, res.Steps)
	if len(dropped) == 0 {
		g.before = after
		return err
	}
	lost := g.reading.unconfirmed(ctx, g.t, dropped, after)
	if len(lost) == 0 {
		g.before = after
		return err
	}
	kept, perr := after, error(nil)
	if slices.ContainsFunc(lost, func(l readrepair.LostRead) bool { return l.Replaced == "" }) {
		if kept, perr = readrepair.PutBackEntries(g.before, after, lost); perr == nil {
			perr = g.s.Import(ctx, kept.Raw)
		}
	}
	if perr != nil {
		return errors.Wrapf(perr, "put back into the stack what a failed read of the cloud dropped (%s): "+
			"`pulumi stack export --version` and `pulumi stack import` of the version before the %s restore it",
			readrepair.DescribeLost(lost), g.op)
	}
	g.before = kept
	return &readrepair.ReadFailedError{Operation: g.op, File: g.t.File, Cloud: readrepair.CloudName(g.t), Resources: lost, Err: err}
}

// unconfirmed are the dropped resources whose cloud does not confirm them gone: those it lists
// still, and those it could not be asked about. A type clusterplane's client does not read is
// left dropped, as the provider said (clusterplane's own pool fails its read instead of
// dropping). after tells what the operation made in a resource's place.
func (d reading) unconfirmed(ctx context.Context, t deploytarget.Target, dropped []apitype.ResourceV3, after stackstate.State) []readrepair.LostRead {
	ask := d.lists(t)
	var out []readrepair.LostRead
	for _, r := range dropped {
		if !scan.ReadsType(string(r.Type)) {
			continue
		}
		f := ask(ctx, scan.Resource{Type: string(r.Type), ID: string(r.ID), Inputs: r.Inputs, Outputs: r.Outputs})
		if f.Verdict == scan.Missing {
			continue
		}
		l := readrepair.LostRead{Type: string(r.Type), Name: r.URN.Name(), ID: string(r.ID), Listed: f.Verdict != scan.Unjudged, Why: f.Why}
		for _, a := range after.Deployment.Resources {
			if a.URN == r.URN && a.ID != "" && !a.Delete {
				l.Replaced = string(a.ID)
			}
		}
		out = append(out, l)
	}
	return out
}

// previewReads checks a preview that read the cloud (in memory: nothing is written). A resource
// the stack holds that the preview would create is one its read dropped: a provider that takes a
// failed read for a deletion (Civo's, on a 503, above) makes the preview show the creation of what
// exists, and a reviewer or a saved plan would take it as the change. One its cloud still lists,
// or could not be asked about, fails the preview saying the read failed; one the cloud no longer
// lists (deleted outside clusterplane) is a create indeed. s is the stack previewed, whose state
// is read only when the preview creates something; op the command, for the message.
func (d reading) previewReads(ctx context.Context, t deploytarget.Target, s stackstate.Stack, op string, res stackstate.Result) error {
	creates := map[string]bool{}
	for _, step := range res.Steps {
		if step.IsAction(apitype.OpCreate) {
			creates[step.URN] = true
		}
	}
	if len(creates) == 0 {
		return nil
	}
	st, err := s.State(ctx)
	if err != nil {
		return errors.Wrap(err, "check what the preview's read of the cloud dropped")
	}
	var dropped []apitype.ResourceV3
	for _, r := range st.Deployment.Resources {
		if creates[string(r.URN)] && r.Custom && r.ID != "" && !r.Delete {
			dropped = append(dropped, r)
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	// Nothing took the resource's place: a preview makes nothing.
	if lost := d.unconfirmed(ctx, t, dropped, stackstate.State{}); len(lost) > 0 {
		return &readrepair.ReadFailedError{Operation: op, File: t.File, Cloud: readrepair.CloudName(t), Resources: lost}
	}
	return nil
}
