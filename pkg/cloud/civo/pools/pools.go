// Package pools manages one Civo Kubernetes node pool as Civo's API sees it: create,
// read, update in place, resize, delete the pool or one of its instances, and wait until the
// pool's nodes are running. It is the one writer of Civo's pools: the node pool program
// (iac/pulumi/civokubernetesnodepool), rotations (pkg/cloud/civo's Pools) and the Karpenter
// provider (karpenter/pkg/clouds) all write through its Client.
//
// It exists because the only Pulumi Civo provider (pulumi-civo 2.4.8, which bundles
// terraform-provider-civo v1.1.4) cannot update a pool correctly:
//
//   - Any node_count change panics the provider: its update asserts d.Get("node_count")
//     to *int while the value is an int (civo/terraform-provider-civo#381, fixed upstream
//     only in v1.2.4 by PR #392).
//   - Removing every label never reaches Civo: civogo's KubernetesClusterPoolUpdateConfig
//     tags Labels `json:"labels,omitempty"`, so an empty map is dropped from the PUT body
//     and the old labels stay. Upstream fixed this later (v1.2.6) with its own payload of
//     *map[string]string, which is what this package does too.
//
// The package sends its requests (client.go) through pkg/cloud/cloudapi, as every other cloud
// request of clusterplane goes: its transport, its retry rule (which never sends a create again
// after a 5xx or a lost answer), its count and its observers. It takes github.com/civo/civogo
// v0.3.89's types (KubernetesPool, KubernetesClusterPoolConfig) as the wire format, rather than
// civogo's pool helpers: those pass every error through civogo's decodeError, which drops the HTTP
// status code that tells a retryable 429/5xx from a final 4xx; its update helper cannot send
// "labels": {}; and civogo made a new Transport per request and took no context.
package pools

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// CivoLabelPrefix is the label namespace Civo writes on a pool's nodes by itself.
// Labels under it are Civo's, never the user's: Refresh drops them and Drift ignores
// them, so they are never drift, and Validate refuses them in a Spec, because a label
// that Refresh always drops could never converge.
const CivoLabelPrefix = "kubernetes.civo.com/"

// RotationLabel is the node label a pool rotation marks the pools it creates with (its value a
// rotation mark, pkg/change/rotation's Mark): Civo pools carry no tags, and their id is their
// name, which anyone may choose. It is clusterplane's, never the user's: like Civo's own labels,
// Refresh drops it and Drift ignores it.
const RotationLabel = "clusterplane.dev/rotation"

// StackLabel is the node label every pool clusterplane creates on Civo carries: its stack's mark
// (package stackmark, Mark.Label), by which an up takes back a pool its own create made when the
// answer was lost. It is clusterplane's, never the user's, as RotationLabel is: Refresh drops it
// and Drift ignores it, so a pool made before it was set is left without it.
const StackLabel = "clusterplane.dev/stack"

// Taint is a Kubernetes taint on every node of the pool.
type Taint struct {
	Key    string
	Value  string
	Effect string // NoSchedule, PreferNoSchedule or NoExecute
}

// Spec is the desired node pool.
type Spec struct {
	// ClusterID is the Civo Kubernetes cluster the pool belongs to.
	ClusterID string
	// Region is the Civo region of the cluster. Empty means the Client's region; any
	// other value must equal it, because Civo's pool endpoints are per region.
	Region string
	// ID is the pool id, chosen by the caller at creation; Civo keeps it.
	ID string
	// Size is the instance size of every node, e.g. g4s.kube.medium. Civo cannot
	// change it in place.
	Size string
	// Count is the number of nodes, at least 1.
	Count int
	// Labels are Kubernetes labels on every node. Nil and empty are the same: no labels.
	Labels map[string]string
	// Taints are Kubernetes taints on every node. Nil and empty are the same: no taints.
	Taints []Taint
	// PublicIP gives every node a public IP. Civo cannot change it in place.
	PublicIP bool
}

// Instance is one node of the pool as Civo reports it: ID is the instance's (the node's
// providerID is civo://<ID>), Name the Kubernetes node's (the ID when Civo gives no hostname).
type Instance struct {
	ID     string
	Name   string
	Status string // ACTIVE once the node is running
}

// State is the pool as Civo reports it. Its Spec carries Civo's values, including the
// labels Civo sets itself under CivoLabelPrefix; ClusterID, Region and ID are the ones
// the pool was addressed with, because Civo's pool response does not repeat them.
type State struct {
	Spec
	InstanceNames []string
	Instances     []Instance
}

// ReadyStatus is the instance status Civo reports for a running node; the
// terraform-provider-civo wait loop uses the same value.
const ReadyStatus = "ACTIVE"

var validEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// Problem is one thing in a spec that Civo would refuse or this package could not keep
// converged: the field (cluster_id, id, size, count, labels, taints[i].key, taints[i].effect)
// and why.
type Problem struct{ Field, Reason string }

// Problems lists the spec's problems, in field order.
func Problems(s Spec) []Problem {
	var out []Problem
	if s.ClusterID == "" {
		out = append(out, Problem{"cluster_id", "cluster id is empty"})
	}
	if s.ID == "" {
		out = append(out, Problem{"id", "pool id is empty"})
	}
	if s.Size == "" {
		out = append(out, Problem{"size", "size is empty"})
	}
	if s.Count < 1 {
		out = append(out, Problem{"count", fmt.Sprintf("count is %d, want at least 1", s.Count)})
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		if strings.HasPrefix(k, CivoLabelPrefix) {
			out = append(out, Problem{"labels", fmt.Sprintf("label %q is under %s, which Civo manages itself", k, CivoLabelPrefix)})
		}
	}
	for i, t := range s.Taints {
		if t.Key == "" {
			out = append(out, Problem{fmt.Sprintf("taints[%d].key", i), "a taint has an empty key"})
		}
		if !slices.Contains(validEffects, t.Effect) {
			out = append(out, Problem{fmt.Sprintf("taints[%d].effect", i),
				fmt.Sprintf("taint %q has effect %q, want one of %s", t.Key, t.Effect, strings.Join(validEffects, ", "))})
		}
	}
	return out
}

// Validate reports what in the spec Civo would refuse or this package could not keep
// converged (Problems), as one error.
func Validate(s Spec) error {
	var reasons []string
	for _, p := range Problems(s) {
		reasons = append(reasons, p.Reason)
	}
	if len(reasons) > 0 {
		return &Error{Op: "invalid spec", ClusterID: s.ClusterID, PoolID: s.ID, Err: errors.New(strings.Join(reasons, "; "))}
	}
	return nil
}

// Refresh returns the spec as Civo reports it, in the spec's terms: the live values
// with Civo's own labels (CivoLabelPrefix) dropped, and nil for no labels or no taints.
// A program that reads a pool back stores this, so Civo's labels never become state.
func Refresh(live State) Spec {
	s := live.Spec
	s.Labels = UserLabels(live.Labels)
	if len(s.Taints) == 0 {
		s.Taints = nil
	} else {
		s.Taints = slices.Clone(s.Taints)
	}
	return s
}

// Drift lists the fields where the live pool differs from the spec: count, size,
// labels, taints and public_ip, in that order. Labels under CivoLabelPrefix are not
// drift; nil and empty labels or taints are the same; taint order does not matter.
func Drift(spec Spec, live State) []string {
	var fields []string
	if spec.Count != live.Count {
		fields = append(fields, "count")
	}
	if spec.Size != live.Size {
		fields = append(fields, "size")
	}
	if !maps.Equal(UserLabels(spec.Labels), UserLabels(live.Labels)) {
		fields = append(fields, "labels")
	}
	if !taintsEqual(spec.Taints, live.Taints) {
		fields = append(fields, "taints")
	}
	if spec.PublicIP != live.PublicIP {
		fields = append(fields, "public_ip")
	}
	return fields
}

// UserLabels returns the labels that are not under CivoLabelPrefix nor RotationLabel or
// StackLabel, or nil when none are.
func UserLabels(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		if strings.HasPrefix(k, CivoLabelPrefix) || k == RotationLabel || k == StackLabel {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// ReplaceFields lists the fields that differ between old and new and that Civo cannot
// change in place, so the pool must be replaced: cluster_id, region, id, size, public_ip.
// Update refuses a change to any of them.
func ReplaceFields(old, new Spec) []string {
	var fields []string
	if old.ClusterID != new.ClusterID {
		fields = append(fields, "cluster_id")
	}
	if old.Region != new.Region {
		fields = append(fields, "region")
	}
	if old.ID != new.ID {
		fields = append(fields, "id")
	}
	if old.Size != new.Size {
		fields = append(fields, "size")
	}
	if old.PublicIP != new.PublicIP {
		fields = append(fields, "public_ip")
	}
	return fields
}

func taintsEqual(a, b []Taint) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(sortedTaints(a), sortedTaints(b))
}

func sortedTaints(ts []Taint) []Taint {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(x, y Taint) int {
		return strings.Compare(x.Key+"\x00"+x.Effect+"\x00"+x.Value, y.Key+"\x00"+y.Effect+"\x00"+y.Value)
	})
	return out
}

// ErrWaitTimeout is wrapped by the error of a Create, Update or Delete whose pool did
// not reach the wanted state within the wait timeout.
var ErrWaitTimeout = errors.New("timed out waiting")

// Error is every error the Client returns: it names the operation, the pool and the
// cluster. Its text never contains the API token.
type Error struct {
	Op        string // create, get, update, delete, wait
	ClusterID string
	PoolID    string
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("civo node pool %q in cluster %q: %s: %v", e.PoolID, e.ClusterID, e.Op, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// IsNotFound reports whether err is Civo answering 404.
func IsNotFound(err error) bool { return cloudapi.IsNotFound(err) }
