//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
)

// The fleet scan against the provider's refresh, property by property: for every row of the
// DigitalOcean effects tables whose attribute the provider reads back, the loopback cloud's value
// is set (on a stack deployed without it), changed and removed (on a stack deployed with it), and
// the properties the scan finds differing must be those of the fields `drift --deep` names on the
// real plugin, row by row.
// Each way of changing is made to every property of a stack at once, so one refresh judges them
// all: three engine runs a kind, not three a row. The Civo tables are held by the test after it.
//
// The scan's verdict is read as drift reads it (package scan, on the stack's state as the backend
// holds it); --deep's from drift's JSON report.
// Promise: scan-agrees-with-refresh
// Promise: e2e-fleet-scan-finds-what-the-refresh-finds
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
	d := differential{e: e, account: scan.Account{Cloud: "digitalocean", Base: e.do.URL(), Token: doToken}}
	d.kind(t, "DigitalOceanKubernetesCluster", doClusterShape,
		subject{file: full, stack: "digitaloceankubernetescluster/full", cloud: cluster(fullID)},
		subject{file: minimal, stack: "digitaloceankubernetescluster/minimal", cloud: cluster(minimalID)})
	d.kind(t, "DigitalOceanKubernetesNodePool", doPoolShape,
		subject{file: fullPool, stack: "digitaloceankubernetesnodepool/fullpool", cloud: pool("fullpool")},
		subject{file: minimalPool, stack: "digitaloceankubernetesnodepool/minimalpool", cloud: pool("minimalpool")})
	t.Logf("the DigitalOcean differential took %s", time.Since(start).Round(time.Second))
}

// The same for the Civo cluster's table: its cluster's properties through the cloud's answer, its
// firewall's rules (spec.apiServerAllowedCidrs) through Civo's API, a rule added and every ingress
// rule removed (which the provider's read keeps as the state has them). The Civo node pool's
// plugin is one the scan does not read: such a stack is left to the engine, never judged.
// Promise: scan-agrees-with-refresh
// Promise: e2e-fleet-scan-finds-what-the-refresh-finds
func TestTheFleetScanFindsWhatTheProvidersRefreshFindsInEveryCivoProperty(t *testing.T) {
	t.Parallel()
	start := time.Now()
	e := newEnv(t)
	e.seedExamples()
	full := e.write("cfull.yaml", civoFullCluster)
	minimal := e.write("cmin.yaml", civoMinimalCluster)
	if r, code := e.clusterplane("up", full, minimal, "--yes", "-q"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	cluster := func(name string) cloudObject {
		c, ok := e.civo.ClusterNamed(name)
		if !ok {
			t.Fatalf("Civo has no cluster %s", name)
		}
		return cloudObject{
			get: func() any { c, _ := e.civo.Cluster(c.ID); return c },
			put: func(v any) {
				edited := v.(civogo.KubernetesCluster)
				e.civo.EditCluster(c.ID, func(old *civogo.KubernetesCluster) { *old = edited })
			},
		}
	}
	d := differential{e: e, account: scan.Account{Cloud: "civo", Base: e.civo.URL(), Token: civoToken}}
	d.kind(t, "CivoKubernetesCluster", civoClusterShape,
		subject{file: full, stack: "civokubernetescluster/cfull", cloud: cluster("cfull")},
		subject{file: minimal, stack: "civokubernetescluster/cmin", cloud: cluster("cmin")})

	c, _ := e.civo.ClusterNamed("cfull")
	fw, _ := e.civo.Networking().Firewall(c.FirewallID)
	const field, property = "spec.apiServerAllowedCidrs", "ingressRules"
	for _, way := range []string{"changed", "removed"} {
		switch way {
		case "changed":
			e.civoAPI(t, http.MethodPost, "/v2/firewalls/"+fw.ID+"/rules", `{"region":"FRA1","protocol":"tcp","start_port":"22",`+
				`"end_port":"22","cidr":["0.0.0.0/0"],"direction":"ingress","action":"allow","label":"ssh"}`)
		case "removed":
			now, _ := e.civo.Networking().Firewall(fw.ID)
			for _, r := range now.Rules {
				if r.Direction == "ingress" {
					e.civoAPI(t, http.MethodDelete, "/v2/firewalls/"+fw.ID+"/rules/"+r.ID+"?region=FRA1", "")
				}
			}
		}
		scanned, _ := d.scanProperties(t, "civokubernetescluster/cfull", false)
		deep, failed := d.deepFields(t, full)
		if covered(scanned, property) != slices.Contains(deep, field) || failed {
			t.Errorf("the firewall's ingress rules %s in the cloud: the scan finds %v, drift --deep %v (failed: %v)", way, scanned, deep, failed)
		}
		t.Logf("the firewall's ingress rules %s in the cloud; drift --deep finds %v", way, deep)
	}
	t.Logf("the Civo differential took %s", time.Since(start).Round(time.Second))
}

// The manifests of the Civo differential: the production example's fields, and the fewest.
const (
	civoFullCluster = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: cfull
spec:
  clusterName: cfull
  region: fra1
  kubernetesVersion: 1.30.5-k3s1
  clusterType: k3s
  cni: cilium
  network:
    value: 3c1e0f62-9d4b-4a7e-b8c5-2f6a1d9e0b73
  apiServerAllowedCidrs: [203.0.113.0/24]
  defaultNodePool:
    size: g4s.kube.medium
    nodeCount: 3
  tags: [team-platform]
`
	civoMinimalCluster = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: cmin
spec:
  clusterName: cmin
  region: fra1
  kubernetesVersion: 1.30.5-k3s1
  clusterType: k3s
  network:
    value: 8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b
  defaultNodePool:
    size: g4s.kube.small
    nodeCount: 1
`
)

// civoAPI asks the loopback Civo's API, failing the test on an error.
func (e *env) civoAPI(t *testing.T, method, path, body string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.civo.URL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "bearer "+civoToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
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

// shape is where a cloud's answer holds each Terraform attribute of a kind's rows: a key of the
// answer's JSON (keys renames those named otherwise), or within its default pool (pool finds it,
// for the attributes under poolAttr; poolKeys renames those keys).
type shape struct {
	keys, poolKeys map[string]string
	poolAttr       string
	pool           func(answer map[string]any) map[string]any
	// skip are attributes this test cannot change in the cloud, and why.
	skip map[string]string
	// samples are values to set where neither manifest sets one, by the answer's key.
	samples map[string]any
}

// doPoolSamples set an autoscaler on a DigitalOcean pool; civoPoolSamples a Civo pool's public IPs.
var (
	doPoolSamples   = map[string]any{"auto_scale": true, "min_nodes": float64(1), "max_nodes": float64(3)}
	civoPoolSamples = map[string]any{"public_ip_node_pool": true}
)

var (
	doClusterShape = shape{keys: map[string]string{"rdma_shared_device_plugin": "rdma_shared_dev_plugin"},
		poolKeys: map[string]string{"node_count": "count", "taint": "taints"}, poolAttr: "node_pool", pool: defaultPool,
		samples: doPoolSamples}
	doPoolShape = shape{keys: map[string]string{"node_count": "count", "taint": "taints"},
		skip: map[string]string{"cluster_id": "a pool cannot move between clusters"}, samples: doPoolSamples}
	civoClusterShape = shape{keys: map[string]string{"cni": "cni_plugin"}, poolKeys: map[string]string{"node_count": "count"},
		poolAttr: "pools", pool: firstPool, samples: civoPoolSamples, skip: map[string]string{
			"region":       "the scan lists a cluster in the region its state names, as the provider reads it",
			"applications": "neither the list nor the provider's read holds what was installed at create",
			"ingress_rule": "a firewall's rules: the test after the cluster's changes them through Civo's API",
		}}
)

// firstPool is a Civo cluster's first pool, which the provider reads as its pools (flattenNodePool).
func firstPool(answer map[string]any) map[string]any {
	pools, _ := answer["pools"].([]any)
	if len(pools) == 0 {
		return nil
	}
	p, _ := pools[0].(map[string]any)
	return p
}

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

// keyedRow is an effects row with the key of the cloud's answer it is read from.
type keyedRow struct {
	effects.Row
	// key is the JSON key in the cloud's answer; sub the key within the default pool, for the
	// attributes of a cluster's pool (shape.poolAttr).
	key, sub string
}

// rowsOf are the rows of kind's table the scan and the provider both read back, with their keys.
func rowsOf(t *testing.T, table *effects.Table, sh shape) []keyedRow {
	var out []keyedRow
	for _, row := range table.Rows {
		if row.Attribute == "" || row.Resource == effects.Provider || row.Resource == effects.Component {
			continue
		}
		_, attr, _ := strings.Cut(row.Attribute, ".")
		top, rest, _ := strings.Cut(attr, ".")
		// Never read from the cloud (the provider keeps what was sent), so neither can see it:
		// what the table says so, a kubeconfig's lifetime, a Civo default pool's labels and taints.
		if table.NeverReadBack[camel(top)] || top == "kubeconfig_expire_seconds" || top == "pools" && (rest == "labels" || rest == "taint") {
			continue
		}
		if sh.skip[top] != "" {
			continue
		}
		k := keyedRow{Row: row, key: top}
		if v, ok := sh.keys[top]; ok {
			k.key = v
		}
		if top == sh.poolAttr && rest != "" {
			k.key, k.sub = "", rest
			if v, ok := sh.poolKeys[rest]; ok {
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
// removed on full, each with every row's property at once, but for a row whose change the provider
// fails at preview (drift then has no fields to name), which is made alone.
func (d differential) kind(t *testing.T, kind string, sh shape, full, bare subject) {
	table := registry.Kinds().Table(kind)
	rows := rowsOf(t, table, sh)
	fullAnswer := asJSON(t, full.cloud.get())
	exercised := map[string]int{}
	for _, way := range []string{"set", "changed", "removed"} {
		s := full
		if way == "set" {
			s = bare
		}
		original := s.cloud.get()
		var batch []keyedRow
		batches := [][]keyedRow{nil}
		for _, r := range rows {
			if !alter(asJSON(t, original), fullAnswer, r, way, sh) {
				continue
			}
			if r.Refusal == effects.FailsAtPreview {
				batches = append(batches, []keyedRow{r})
				continue
			}
			batch = append(batch, r)
		}
		batches[0] = batch
		for _, made := range batches {
			d.judge(t, table, s, original, fullAnswer, made, way, sh)
			for _, r := range made {
				exercised[r.Path]++
			}
		}
	}
	for _, r := range rows {
		if exercised[r.Path] == 0 {
			t.Errorf("%s %s: no way of changing it was made in the cloud", kind, r.Path)
		}
	}
}

// judge makes the rows' changes in s's cloud, and holds what the scan finds differing to what
// drift --deep names, row by row; then it puts the cloud back as it was.
func (d differential) judge(t *testing.T, table *effects.Table, s subject, original any, fullAnswer map[string]any, made []keyedRow,
	way string, sh shape) {
	if len(made) == 0 {
		return
	}
	answer := asJSON(t, original)
	for _, r := range made {
		alter(answer, fullAnswer, r, way, sh)
	}
	s.cloud.put(fromJSON(t, answer, original))
	defer s.cloud.put(original)
	// A property removed from the cloud's answer that the cloud always gives is one the scan
	// leaves to the engine (unread): the stack runs, and drift --deep's verdict is the one said.
	scanned, unread := d.scanProperties(t, s.stack, way == "removed")
	deep, failed := d.deepFields(t, s.file)
	// Several rows send one property (metadata's fields and spec.tags are all tags): each row is
	// judged by its property, as both name it.
	var deepProperties []string
	for _, f := range deep {
		row, ok := table.Lookup(f)
		if !ok {
			t.Errorf("%s %s in the cloud: drift --deep names %s, which no row sends", table.Name, way, f)
			continue
		}
		deepProperties = append(deepProperties, propertyOf(row))
	}
	for _, r := range made {
		p := propertyOf(r.Row)
		if covered(unread, p) {
			continue
		}
		// A change the provider fails at preview is one drift cannot miss: it fails.
		found := covered(deepProperties, p) || failed && len(made) == 1
		if covered(scanned, p) != found {
			t.Errorf("%s %s (%s) %s in the cloud: the scan finds %v, drift --deep %v (failed: %v)", table.Name, r.Path, p, way,
				scanned, deep, failed)
		}
	}
	t.Logf("%s: %d rows %s in the cloud; drift --deep finds %v (failed: %v); the scan leaves %v to it", table.Name, len(made), way,
		deep, failed, unread)
}

// alter sets, changes or removes row r's value in answer (the cloud's JSON), full holding the
// value a set copies; false when this way does not apply (no value to change, or one already set).
func alter(answer, full map[string]any, r keyedRow, way string, sh shape) bool {
	at, from := answer, full
	key := r.key
	if r.sub != "" {
		at, from = sh.pool(answer), sh.pool(full)
		key = r.sub
		if at == nil || from == nil {
			return false
		}
		if key == "tags" && sh.poolAttr == "node_pool" {
			// A DigitalOcean default pool is found by its tag, which stays: only the manifest's
			// tags are set, changed or removed.
			return alterPoolTags(at, from, way)
		}
	}
	v, has := at[key]
	switch way {
	case "set":
		if has && !emptyJSON(v) {
			return false
		}
		set := from[key]
		if emptyJSON(set) {
			// Neither manifest sets it (an autoscaler's bounds): a value of its kind.
			if set = sh.samples[key]; set == nil {
				return false
			}
		}
		at[key] = set
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

// alterPoolTags sets, changes or removes a DigitalOcean default pool's own tags (what the manifest
// gives), leaving DigitalOcean's and the provider's (k8s, k8s:..., terraform:default-node-pool).
func alterPoolTags(at, from map[string]any, way string) bool {
	theirs := func(tags any) (own, others []any) {
		l, _ := tags.([]any)
		for _, t := range l {
			if s, _ := t.(string); s == "k8s" || strings.HasPrefix(s, "k8s:") || strings.HasPrefix(s, "terraform:") {
				others = append(others, t)
			} else {
				own = append(own, t)
			}
		}
		return own, others
	}
	own, others := theirs(at["tags"])
	switch fromOwn, _ := theirs(from["tags"]); {
	case way == "set" && len(own) == 0 && len(fromOwn) > 0:
		at["tags"] = append(others, fromOwn...)
	case way == "changed" && len(own) > 0:
		at["tags"] = append(slices.Clone(at["tags"].([]any)), "drifted")
	case way == "removed" && len(own) > 0:
		at["tags"] = others
	default:
		return false
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
	// A value of like's type, decoded into through a pointer to it.
	ptr := reflect.New(reflect.TypeOf(like))
	err = json.Unmarshal(data, ptr.Interface())
	if err != nil {
		t.Fatalf("the changed answer does not read as %T: %v", like, err)
	}
	return ptr.Elem().Interface()
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
// as drift judges it: the stack's cluster or pool from the state the backend holds; and, where
// leftOut allows the cloud's answer to leave properties out, those the scan found left out
// (unread), which leave the stack to the engine.
func (d differential) scanProperties(t *testing.T, stack string, leftOut bool) (differing, unread []string) {
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
	for _, res := range checkpoint.Checkpoint.Latest.Resources {
		typ := string(res.Type)
		if !scan.ReadsType(typ) || res.Delete {
			continue
		}
		f := scan.New().Judge(context.Background(), d.account, scan.Resource{Type: typ, ID: string(res.ID), Inputs: res.Inputs,
			Outputs: res.Outputs, Ignore: res.IgnoreChanges})
		if f.Verdict != scan.Same && f.Verdict != scan.Differs && !(leftOut && len(f.Unread) > 0) {
			t.Fatalf("the scan judged %s %s: %s", typ, f.Verdict, f.Why)
		}
		for _, diff := range f.Differences {
			differing = append(differing, diff.Property)
		}
		unread = append(unread, f.Unread...)
	}
	slices.Sort(differing)
	return differing, unread
}

// deepFields are the fields `drift --deep` names for the stack of file.
func (d differential) deepFields(t *testing.T, file string) (fields []string, failed bool) {
	t.Helper()
	rep, code, r := d.e.adoptReport("drift", file, "--deep")
	if code == 1 && len(rep.Stacks) == 1 && rep.Stacks[0].Outcome == "failed" {
		return nil, true
	}
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
	return out, false
}
