// This file decides rotations, as diff shows them: which change a rotation carries out (Applies,
// from the pool's rollout block), and the steps of each pool's rotation (Decide), with what the pools
// cost meanwhile (PriceRotations). up carries the steps out with Rotator.

package rotation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultDrainTimeoutMinutes is how long a rotation's drain may take when the rollout block
// does not say; DefaultReadyTimeoutMinutes how long the new pool's nodes may take to be Ready.
const (
	DefaultDrainTimeoutMinutes = 30
	DefaultReadyTimeoutMinutes = 20
)

// Step actions of a rotation, in the order they run.
const (
	StepCreate = "create"
	StepWait   = "wait-ready"
	StepCordon = "cordon"
	StepDrain  = "drain"
	StepDelete = "delete"
	StepRename = "rename"
)

// Rotation is how deploying a change that would replace a pool (or refuse a change to it)
// rotates the pool instead, as its rollout block allows: the steps in order, each with what the
// pools cost a month while it runs.
type Rotation struct {
	// Pool is the pool's message in the manifest: "spec" for a node pool kind,
	// "spec.defaultNodePool" for a cluster's default pool.
	Pool string `json:"pool"`
	// Name is the pool's name in the cloud now.
	Name string `json:"name"`
	// Changes are the paths of the changes the rotation carries out.
	Changes []string `json:"changes"`
	Steps   []Step   `json:"steps"`

	old, new poolSize
}

// Step is one step of a rotation.
type Step struct {
	// Action is one of create, wait-ready, cordon, drain, delete, rename.
	Action string `json:"action"`
	// Pool is the cloud name of the pool the step acts on.
	Pool   string `json:"pool"`
	Detail string `json:"detail"`
	// Cost is what the pools that exist during the step cost a month, once priced.
	Cost *cost.Estimate `json:"cost,omitempty"`

	running []poolSize
}

// poolSize is a pool's size and node count (a range when it autoscales).
type poolSize struct {
	size      string
	low, high int64
}

func (p poolSize) nodes() string {
	if p.low == p.high {
		return fmt.Sprintf("%d × %s", p.low, p.size)
	}
	return fmt.Sprintf("%d–%d × %s", p.low, p.high, p.size)
}

// rollout is a pool's rollout block as diff reads it.
type rollout struct {
	rotate        bool
	maxSurge      int64
	drainMinutes  int64
	readyMinutes  int64
	deleteEmptyOK bool
}

// readRollout reads the rollout block at path (JSON names, e.g. "spec.defaultNodePool.rollout")
// of a spec, and the pool message holding it. The path is walked by its names because it is data:
// a kind's effects table writes it on the row (Row.Rollout), next to the row's own path, and the
// rotation tests build each kind's spec from its Go types, so a renamed step fails them.
func readRollout(spec protoreflect.Message, path string) (rollout, protoreflect.Message) {
	parts := strings.Split(strings.TrimPrefix(path, "spec."), ".")
	pool := spec
	for _, name := range parts[:len(parts)-1] {
		fd := pool.Descriptor().Fields().ByJSONName(name)
		if fd == nil || fd.Message() == nil {
			return rollout{}, nil
		}
		pool = pool.Get(fd).Message()
	}
	fd := pool.Descriptor().Fields().ByJSONName(parts[len(parts)-1])
	if fd == nil || fd.Message() == nil || !pool.Has(fd) {
		return rollout{}, pool
	}
	m := pool.Get(fd).Message()
	r := rollout{
		maxSurge:      protofield.Int(m, sharedv1.RolloutFieldMaxSurge),
		drainMinutes:  protofield.Int(m, sharedv1.RolloutFieldDrainTimeoutMinutes),
		readyMinutes:  protofield.Int(m, sharedv1.RolloutFieldReadyTimeoutMinutes),
		deleteEmptyOK: protofield.Bool(m, sharedv1.RolloutFieldDeleteEmptyDirData),
	}
	if sfd := m.Descriptor().Fields().ByJSONName(sharedv1.RolloutFieldStrategy); sfd != nil {
		if ev := sfd.Enum().Values().ByNumber(m.Get(sfd).Enum()); ev != nil {
			r.rotate = ev.Name() == "ROTATE"
		}
	}
	if r.drainMinutes == 0 {
		r.drainMinutes = DefaultDrainTimeoutMinutes
	}
	if r.readyMinutes == 0 {
		r.readyMinutes = DefaultReadyTimeoutMinutes
	}
	return r, pool
}

// sizeOf is a pool message's size and node count: with autoScale, a new pool starts at its
// minimum (at least one node) and may grow to its maximum.
func sizeOf(pool protoreflect.Message) poolSize {
	p := poolSize{size: protofield.String(pool, kindfield.SpecSize), low: protofield.Int(pool, kindfield.SpecNodeCount)}
	p.high = p.low
	if protofield.Bool(pool, kindfield.SpecAutoScale) {
		p.low, p.high = max(protofield.Int(pool, kindfield.SpecMinNodes), 1), max(protofield.Int(pool, kindfield.SpecMaxNodes), 1)
	}
	return p
}

// counted says n with its unit, one or many as n asks: "1 minute", "30 minutes", "1 node is".
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// surge is how many nodes a new pool of this size starts with: all of them must be Ready before
// the old pool is drained.
func (p poolSize) surge() int64 { return p.low }

// Applies decides whether the change of row (whose effect replaces or refuses) is carried out by
// rotating its pool, newSpec being the new manifest's spec: yes when its rollout block says
// ROTATE and the surge fits its maxSurge. reason is why not, for the change's reason, when it is not.
func Applies(newSpec protoreflect.Message, row effects.Row) (ok bool, reason string) {
	r, pool := readRollout(newSpec, row.Rollout)
	if pool == nil {
		return false, ""
	}
	if !r.rotate {
		return false, effects.RolloutReason(row.Rollout)
	}
	if n := sizeOf(pool).surge(); r.maxSurge > 0 && n > r.maxSurge {
		return false, fmt.Sprintf("; %s allows rotation, but the new pool would start %d nodes next to the old pool's, "+
			"more than its maxSurge %d: raise maxSurge, or lower the node count for the rotation", row.Rollout, n, r.maxSurge)
	}
	return true, ""
}

// Reason is the reason of a change a rotation carries out.
func Reason(row effects.Row, reason string) string {
	return row.Rollout + " allows rotation: a pool with the new settings is created next to the old one, the old one " +
		"cordoned, drained and deleted, instead of what the change alone would do (" + reason + ")"
}

// Decide builds the rotations of the changes carried out by rotation (changes, the paths of those
// of effect rotate, in order), one per pool, from the kind's table and the old and new specs.
func Decide(table *effects.Table, oldSpec, newSpec protoreflect.Message, changes []string) []Rotation {
	paths := map[string][]string{}
	var order []string
	var out []Rotation
	for _, c := range changes {
		row, _ := table.Lookup(c)
		if _, ok := paths[row.Rollout]; !ok {
			order = append(order, row.Rollout)
		}
		paths[row.Rollout] = append(paths[row.Rollout], c)
	}
	for _, path := range order {
		out = append(out, plan(table, oldSpec, newSpec, path, paths[path]))
	}
	return out
}

func plan(table *effects.Table, oldSpec, newSpec protoreflect.Message, path string, changes []string) Rotation {
	r, newPool := readRollout(newSpec, path)
	_, oldPool := readRollout(oldSpec, path)
	poolPath := strings.TrimSuffix(path, ".rollout")
	oldName, newName := poolName(oldPool), poolName(newPool)
	rot := Rotation{Pool: poolPath, Name: oldName, Changes: changes, old: sizeOf(oldPool), new: sizeOf(newPool)}
	drain := "drain its nodes through the eviction API, PodDisruptionBudgets respected and DaemonSet pods left, within " +
		counted(r.drainMinutes, "minute", "minutes")
	if r.deleteEmptyOK {
		drain += "; pods with emptyDir volumes are evicted and lose that data"
	} else {
		drain += "; a pod with emptyDir data stops the drain (rollout.deleteEmptyDirData allows it)"
	}
	// hop moves the workloads from pool from (of size a) to a new pool to (of size b).
	hop := func(from, to string, a, b poolSize, created string) {
		both := []poolSize{a, b}
		rot.Steps = append(rot.Steps,
			Step{Action: StepCreate, Pool: to, Detail: "create pool " + to + " with " + b.nodes() + created, running: both},
			Step{Action: StepWait, Pool: to, Detail: "wait until its " + counted(b.surge(), "node is", "nodes are") + " Ready in the cluster, within " +
				counted(r.readyMinutes, "minute", "minutes"), running: both},
			Step{Action: StepCordon, Pool: from, Detail: "cordon the nodes of pool " + from + ": nothing new is scheduled there", running: both},
			Step{Action: StepDrain, Pool: from, Detail: drain, running: both},
			Step{Action: StepDelete, Pool: from, Detail: "delete pool " + from, running: []poolSize{b}},
		)
	}
	surgeName := surge(newName)
	switch {
	case !table.Pools.Renames && newName != oldName:
		// The new name is free: one hop, and the pool ends under its manifest's name.
		hop(oldName, newName, rot.old, rot.new, ", the manifest's settings")
	case !table.Pools.Renames:
		// A cloud that names a pool once (Civo, by its id) cannot rename one: the workloads go
		// through a surge pool and back to a pool of the manifest's name.
		hop(oldName, surgeName, rot.old, rot.new, ", the manifest's settings, as a surge pool")
		hop(surgeName, newName, rot.new, rot.new, ", the manifest's name and settings ("+table.Pools.Cloud+" does not rename pools)")
	case strings.HasSuffix(poolPath, kindfield.SpecDefaultNodePool):
		hop(oldName, surgeName, rot.old, rot.new, ", the manifest's settings")
		rot.Steps = append(rot.Steps, Step{Action: StepRename, Pool: surgeName,
			Detail: "tag pool " + surgeName + " " + table.Pools.DefaultPoolTag + " and rename it " + newName + ": " + table.Pools.Cloud + "'s provider finds " +
				"the default pool by that tag, so the cluster keeps its id and is not replaced", running: []poolSize{rot.new}})
	default:
		hop(oldName, surgeName, rot.old, rot.new, ", the manifest's settings")
		rot.Steps = append(rot.Steps, Step{Action: StepRename, Pool: surgeName,
			Detail: "rename pool " + surgeName + " to " + newName + " (" + table.Pools.Cloud + " renames pools in place)", running: []poolSize{rot.new}})
	}
	return rot
}

// poolName is the cloud name of a pool message: a cluster's default pool without one is
// "default", as the module names it.
func poolName(pool protoreflect.Message) string {
	if name := protofield.String(pool, kindfield.SpecNodePoolName); name != "" {
		return name
	}
	return "default"
}

// surge is the name of the pool a rotation creates next to name: a DNS label of at most 63
// characters.
func surge(name string) string {
	const suffix = SurgeSuffix
	if len(name)+len(suffix) > 63 {
		name = strings.TrimRight(name[:63-len(suffix)], "-")
	}
	return name + suffix
}

// PriceRotations fills each step's Cost of rotations with p.
func PriceRotations(rotations []Rotation, p cost.Prices) {
	for i := range rotations {
		for j := range rotations[i].Steps {
			s := &rotations[i].Steps[j]
			e := cost.Estimate{Source: p.Source, Date: p.Date}
			unknown := map[string]bool{}
			for _, pool := range s.running {
				price, ok := p.Sizes[pool.size]
				if !ok {
					unknown[pool.size] = true
					continue
				}
				e.Min += float64(pool.low) * price
				e.Max += float64(pool.high) * price
			}
			for size := range unknown {
				e.Unknown = append(e.Unknown, size)
			}
			sort.Strings(e.Unknown)
			s.Cost = &e
		}
	}
}

// SurgeSuffix names a rotation's surge pool after the pool it stands in for: workers-surge.
const SurgeSuffix = "-surge"

// AllowsRotation tells whether any rollout block of the stack input's manifest that the kind's
// table names says ROTATE: only such a pool is ever rotated, so only its cluster
// can hold a pool a rotation left behind.
func AllowsRotation(table *effects.Table, stackInput proto.Message) bool {
	if table == nil || stackInput == nil {
		return false
	}
	spec := field(field(stackInput.ProtoReflect(), kindfield.StackInputTarget), kindfield.TargetSpec)
	for _, row := range table.Rows {
		if row.Rollout == "" {
			continue
		}
		if r, _ := readRollout(spec, row.Rollout); r.rotate {
			return true
		}
	}
	return false
}

// field is m's message field of the JSON name (a generated kindfield constant).
func field(m protoreflect.Message, jsonName string) protoreflect.Message {
	return m.Get(m.Descriptor().Fields().ByJSONName(jsonName)).Message()
}

// WriteRotation writes a rotation's steps, numbered, each with what the pools cost meanwhile.
func WriteRotation(b *strings.Builder, rot Rotation) {
	fmt.Fprintf(b, "\nrotation of pool %s (%s):\n", rot.Name, strings.Join(rot.Changes, ", "))
	// The numbers are right-aligned, so that the actions of a two-hop rotation's tenth step line up.
	w := len(fmt.Sprint(len(rot.Steps)))
	for i, s := range rot.Steps {
		fmt.Fprintf(b, "  %*d. %-10s %s\n", w, i+1, s.Action, s.Detail)
		if s.Cost != nil {
			fmt.Fprintf(b, "  %*s  %-10s meanwhile %s\n", w, "", "", s.Cost)
		}
	}
}
