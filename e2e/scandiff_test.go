//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
)

// The fleet scan against the provider's refresh, property by property: for every row of the
// DigitalOcean effects tables whose attribute the provider reads back, the loopback cloud's value
// is set (on a stack deployed without it), changed and removed (on a stack deployed with it), and
// the fields the scan finds differing must be the fields `drift --deep` names on the real plugin.
// Each way of changing is made to every property of a stack at once, so one refresh judges them
// all: three engine runs a kind, not three a row. The Civo tables are held by the test after it.
//
// The scan's verdict is read as drift reads it (package scan, on the stack's state as the backend
// holds it); --deep's from drift's JSON report.
func TestTheFleetScanFindsWhatTheProvidersRefreshFindsInEveryDigitalOceanProperty(t *testing.T) {
	t.Parallel()
	start := time.Now()
	e := newEnv(t)
	e.seedExamples()
	full := e.write("full.yaml", doFullCluster)
	minimal := e.write("minimal.yaml", doMinimalCluster)
	if r, code := e.clusterplane("up", full, minimal, "--yes", "-q"); code != 0 {
		t.Fatalf("up of the clusters = %d: %s", code, r)
	}
	fullID, minimalID := e.doCluster("full").ID, e.doCluster("minimal").ID
	fullPool := e.write("fullpool.yaml", strings.ReplaceAll(doFullPool, "CLUSTER", fullID))
	minimalPool := e.write("minimalpool.yaml", strings.ReplaceAll(doMinimalPool, "CLUSTER", fullID))
	if r, code := e.clusterplane("up", fullPool, minimalPool, "--yes", "-q"); code != 0 {
		t.Fatalf("up of the pools = %d: %s", code, r)
	}
	cluster := func(id string) cloudObject {
		return cloudObject{
			get: func() any { c, _ := e.do.Cluster(id); return c },
			put: func(v any) {
				c := v.(godo.KubernetesCluster)
				e.do.EditCluster(id, func(old *godo.KubernetesCluster) { *old = c })
			},
		}
	}
	pool := func(name string) cloudObject {
		p, _ := e.do.PoolNamed(fullID, name)
		return cloudObject{
			get: func() any { p, _ := e.do.Pool(fullID, p.ID); return p },
			put: func(v any) {
				np := v.(godo.KubernetesNodePool)
				e.do.EditPool(fullID, p.ID, func(old *godo.KubernetesNodePool) { *old = np })
			},
		}
	}
	d := differential{e: e, account: scan.Account{Cloud: cost.DigitalOcean, Base: e.do.URL(), Token: doToken}}
	d.kind(t, "DigitalOceanKubernetesCluster", doClusterKeys,
		subject{file: full, stack: "digitaloceankubernetescluster/full", cloud: cluster(fullID)},
		subject{file: minimal, stack: "digitaloceankubernetescluster/minimal", cloud: cluster(minimalID)})
	d.kind(t, "DigitalOceanKubernetesNodePool", doPoolKeys,
		subject{file: fullPool, stack: "digitaloceankubernetesnodepool/fullpool", cloud: pool("fullpool")},
		subject{file: minimalPool, stack: "digitaloceankubernetesnodepool/minimalpool", cloud: pool("minimalpool")})
	t.Logf("the DigitalOcean differential took %s", time.Since(start).Round(time.Second))
}

// The manifests the DigitalOcean differential deploys: every field the cloud reads back set, and
// as few as may be. Deletion protection is off: a removed region or subnet is a replacement, which
// drift names, where a protected cluster's preview would fail.
const (
	doFullCluster = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: full
spec:
  clusterName: full
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  highlyAvailable: true
  autoUpgrade: true
  deletionProtection: false
  maintenanceWindow:
    day: sunday
    startTime: "03:00"
  controlPlaneFirewallAllowedAddresses: [203.0.113.7]
  clusterSubnet: 10.244.0.0/16
  serviceSubnet: 10.245.0.0/16
  clusterAutoscaler:
    scaleDownUtilizationThreshold: 0.65
    scaleDownUnneededTime: 10m
  routingAgent: true
  nvidiaGpuDevicePlugin: true
  amdGpuDevicePlugin: true
  amdGpuDeviceMetricsExporterPlugin: true
  rdmaSharedDevicePlugin: true
  defaultNodePool:
    nodePoolName: system
    size: s-2vcpu-4gb
    nodeCount: 2
    labels: {workload: system}
    taints: [{key: dedicated, value: system, effect: NoSchedule}]
    tags: [pool-system]
  tags: [team-platform]
`
	doMinimalCluster = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: minimal
spec:
  clusterName: minimal
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  deletionProtection: false
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`
	doFullPool = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: fullpool
spec:
  nodePoolName: fullpool
  cluster: {value: CLUSTER}
  size: s-2vcpu-4gb
  nodeCount: 2
  labels: {workload: apps}
  taints: [{key: dedicated, value: apps, effect: NoSchedule}]
  tags: [pool-apps]
`
	doMinimalPool = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: minimalpool
spec:
  nodePoolName: minimalpool
  cluster: {value: CLUSTER}
  size: s-2vcpu-4gb
  nodeCount: 1
`
)

// doClusterKeys and doPoolKeys map a Terraform attribute (as the effects rows name it) to where
// DigitalOcean's answer holds it: a key of godo's JSON, "node_pools" for the cluster's default pool.
var (
	doClusterKeys = map[string]string{"rdma_shared_device_plugin": "rdma_shared_dev_plugin", "node_pool": "default_pool"}
	doPoolKeys    = map[string]string{"node_count": "count", "taint": "taints"}
)

// cloudObject reads and writes one resource in a loopback cloud, as the cloud's own Go type.
type cloudObject struct {
	get func() any
	put func(any)
}

// subject is a deployed stack and its resource in the cloud.
type subject struct {
	file, stack string
	cloud       cloudObject
}

// differential holds the scan to the provider's refresh for one cloud's kinds.
type differential struct {
	e       *env
	account scan.Account
}

// row is an effects row with the key of the cloud's answer it is read from.
type keyedRow struct {
	effects.Row
	// key is the JSON key in the cloud's answer; sub the key within the default pool, for a
	// cluster's node_pool attributes.
	key, sub string
}

// rowsOf are the rows of kind's table the scan and the provider both read back, with their keys.
func rowsOf(t *testing.T, table *effects.Table, keys map[string]string) []keyedRow {
	var out []keyedRow
	for _, row := range table.Rows {
		if row.Attribute == "" || row.Resource == effects.Provider || row.Resource == effects.Component {
			continue
		}
		_, attr, _ := strings.Cut(row.Attribute, ".")
		top, rest, _ := strings.Cut(attr, ".")
		if table.NeverReadBack[camel(top)] || top == "kubeconfig_expire_seconds" || top == "cluster_id" {
			// Never read from the cloud (the provider keeps what was sent): neither can see it.
			continue
		}
		k := keyedRow{Row: row, key: top}
		if v, ok := keys[top]; ok {
			k.key = v
		}
		if rest != "" {
			k.sub = rest
			if v, ok := doPoolKeys[rest]; ok {
				k.sub = v
			}
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no row is read back", table.Name)
	}
	return out
}

// kind runs the three ways of changing over every row of kind's table: set on bare, changed and
// removed on full, each with every row's property at once.
func (d differential) kind(t *testing.T, kind string, keys map[string]string, full, bare subject) {
	table := registry.Kinds().Table(kind)
	rows := rowsOf(t, table, keys)
	fullAnswer := asJSON(t, full.cloud.get())
	for _, way := range []string{"set", "changed", "removed"} {
		s := full
		if way == "set" {
			s = bare
		}
		original := s.cloud.get()
		answer := asJSON(t, original)
		var made []keyedRow
		for _, r := range rows {
			if alter(answer, fullAnswer, r, way) {
				made = append(made, r)
			}
		}
		s.cloud.put(fromJSON(t, answer, original))
		scanned := d.scanProperties(t, s.stack)
		deep := d.deepFields(t, s.file)
		s.cloud.put(original)
		// Several rows send one property (metadata's fields and spec.tags are all tags): each
		// row is judged by its property, as both name it.
		deepProperties := map[string]bool{}
		for _, f := range deep {
			row, ok := table.Lookup(f)
			if !ok {
				t.Errorf("%s %s in the cloud: drift --deep names %s, which no row sends", kind, way, f)
				continue
			}
			deepProperties[propertyOf(row)] = true
		}
		for _, r := range made {
			p := propertyOf(r.Row)
			if covered(scanned, p) != covered(slices.Collect(maps.Keys(deepProperties)), p) {
				t.Errorf("%s %s (%s) %s in the cloud: the scan finds %v, drift --deep %v", kind, r.Path, p, way, scanned, deep)
			}
		}
		t.Logf("%s: %d rows %s in the cloud; the scan and drift --deep both find %v", kind, len(made), way, deep)
	}
}

// alter sets, changes or removes row r's value in answer (the cloud's JSON), full holding the
// value a set copies; false when this way does not apply (no value to change, or one already set).
func alter(answer, full map[string]any, r keyedRow, way string) bool {
	at, from := answer, full
	key := r.key
	if key == "default_pool" {
		at, from = defaultPool(answer), defaultPool(full)
		key = r.sub
		if at == nil || from == nil || key == "tags" {
			// The default pool is found by its tag: the provider's read of a pool without it is
			// the state's, which no way of changing here can tell from the scan's.
			return false
		}
	}
	v, has := at[key]
	switch way {
	case "set":
		if has && !emptyJSON(v) || emptyJSON(from[key]) {
			return false
		}
		at[key] = from[key]
	case "changed":
		if !has || emptyJSON(v) {
			return false
		}
		at[key] = altered(key, v)
	case "removed":
		if !has || emptyJSON(v) || key == "maintenance_policy" || key == "version" {
			// DigitalOcean always answers with a maintenance policy (the provider's read of one
			// without fails: flattenMaintPolicyOpts dereferences it) and a version (the loopback
			// answers its latest for none, which the module then refuses as it refuses any
			// minor the cloud moved to: TestTheFleetScanFindsWhatItOnceMissed).
			return false
		}
		delete(at, key)
	}
	return true
}

// altered is another value of the same kind as v.
func altered(key string, v any) any {
	switch key {
	case "version":
		// A patch of the same minor, which the module leaves to DigitalOcean's auto-upgrade.
		return "1.31.9-do.2"
	case "region":
		return "ams3"
	case "maintenance_policy":
		return map[string]any{"day": "monday", "start_time": "05:00", "duration": "4h0m0s"}
	case "taints":
		return append(slices.Clone(v.([]any)), map[string]any{"key": "drifted", "value": "yes", "effect": "NoExecute"})
	}
	switch v := v.(type) {
	case bool:
		return !v
	case float64:
		return v + 1
	case string:
		return v + "-drifted"
	case []any:
		return append(slices.Clone(v), "drifted")
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = e
			if e != nil {
				out[k] = altered(k, e)
			}
		}
		if len(out) == 0 || key == "labels" {
			out["drifted"] = "yes"
		}
		return out
	}
	return v
}

// defaultPool is the pool of a DigitalOcean cluster's answer that carries the default pool's tag.
func defaultPool(answer map[string]any) map[string]any {
	pools, _ := answer["node_pools"].([]any)
	for _, p := range pools {
		p, _ := p.(map[string]any)
		if tags, _ := p["tags"].([]any); slices.Contains(tags, any("terraform:default-node-pool")) {
			return p
		}
	}
	return nil
}

func emptyJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case float64:
		return v == 0
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, e := range v {
			if !emptyJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fromJSON is answer as a value of like's Go type.
func fromJSON(t *testing.T, answer map[string]any, like any) any {
	t.Helper()
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	switch like.(type) {
	case godo.KubernetesCluster:
		var c godo.KubernetesCluster
		err, out = json.Unmarshal(data, &c), c
	case godo.KubernetesNodePool:
		var p godo.KubernetesNodePool
		err, out = json.Unmarshal(data, &p), p
	default:
		t.Fatalf("no cloud type %T", like)
	}
	if err != nil {
		t.Fatalf("the changed answer does not read as %T: %v", like, err)
	}
	return out
}

// camel is a Terraform attribute's name as Pulumi names the property ("vpc_uuid": "vpcUuid").
func camel(attr string) string {
	words := strings.Split(attr, "_")
	for i := 1; i < len(words); i++ {
		words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
	}
	return strings.Join(words, "")
}

// propertyOf is the property a row sends, Pulumi names with dots ("nodePool.size").
func propertyOf(row effects.Row) string {
	plural := map[string]string{"cluster_autoscaler_configuration": "clusterAutoscalerConfigurations", "taint": "taints"}
	_, attr, _ := strings.Cut(row.Attribute, ".")
	var parts []string
	for _, seg := range strings.Split(attr, ".") {
		if p, ok := plural[seg]; ok {
			seg = p
		} else {
			seg = camel(seg)
		}
		parts = append(parts, seg)
	}
	return strings.Join(parts, ".")
}

// covered tells whether one of properties is p, or holds it, or is held by it.
func covered(properties []string, p string) bool {
	for _, c := range properties {
		if c == p || strings.HasPrefix(c, p+".") || strings.HasPrefix(p, c+".") {
			return true
		}
	}
	return false
}

// scanProperties are the properties the scan finds differing in stack (project/stack), judged
// as drift judges it: the stack's cluster or pool from the state the backend holds.
func (d differential) scanProperties(t *testing.T, stack string) []string {
	t.Helper()
	project, name, _ := strings.Cut(stack, "/")
	data, err := os.ReadFile(filepath.Join(d.e.dir, "state", ".pulumi", "stacks", project, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var checkpoint struct {
		Checkpoint struct {
			Latest apitype.DeploymentV3 `json:"latest"`
		} `json:"checkpoint"`
	}
	if err := json.Unmarshal(data, &checkpoint); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, res := range checkpoint.Checkpoint.Latest.Resources {
		typ := string(res.Type)
		if !scan.ReadsType(typ) || res.Delete {
			continue
		}
		f := scan.New().Judge(context.Background(), d.account, scan.Resource{Type: typ, ID: string(res.ID), Inputs: res.Inputs,
			Outputs: res.Outputs, Ignore: res.IgnoreChanges})
		if f.Verdict != scan.Same && f.Verdict != scan.Differs {
			t.Fatalf("the scan judged %s %s: %s", typ, f.Verdict, f.Why)
		}
		for _, diff := range f.Differences {
			out = append(out, diff.Property)
		}
	}
	slices.Sort(out)
	return out
}

// deepFields are the fields `drift --deep` names for the stack of file.
func (d differential) deepFields(t *testing.T, file string) []string {
	t.Helper()
	rep, code, r := d.e.adoptReport("drift", file, "--deep")
	if code != 0 && code != 3 || len(rep.Stacks) != 1 {
		t.Fatalf("drift --deep = %d: %s", code, r)
	}
	var out []string
	for _, f := range rep.Stacks[0].Drift {
		out = append(out, f.Field)
	}
	if code == 3 && len(out) == 0 {
		out = append(out, fmt.Sprintf("drifted, no field: %s", r.stdout))
	}
	slices.Sort(out)
	return out
}
