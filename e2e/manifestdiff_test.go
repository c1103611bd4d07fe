//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/digitalocean/godo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

// Drift is what the cloud changed since the last up, never what the manifest changed: for every
// row of each kind's effects table whose attribute the provider reads back, on both clouds, the
// field is set (on a stack deployed without it), changed and removed (where the field may be
// removed) in the manifest alone, nothing applied. Then `drift` (through the fleet scan), `drift
// --deep` and `status --drift` must find no drift: drift exits 0 and lists the field as pending,
// and status says Drifted=False. A replacing change (a cluster's region or subnets), a rotating
// one (a pool's size under a rollout block) and a default pool's size on a protected cluster are
// pending the same way. Then the same field is changed in the cloud too, to a third value: that is
// drift (exit 3, the field in the report's drift, and still pending). No value drift or pending shows may carry a
// tag clusterplane derives itself (pkg/manifest/labels) as though the user had written it.
//
// Like the fleet scan's differential (scandiff_test.go), every stack takes all its rows' changes
// at once and one clusterplane run judges every stack: two rounds a cloud (the second removes
// what the first changed, and makes the changes that would clash with the first's), four runs a
// round (drift, drift --deep, status --drift; drift after the cloud's change).
// Promise: drift-is-what-the-cloud-changed
func TestAManifestEditIsPendingNeverDriftForEveryFieldOfEveryKind(t *testing.T) {
	t.Parallel()
	t.Run("DigitalOcean", func(t *testing.T) {
		t.Parallel()
		doManifestEdits(t)
	})
	t.Run("Civo", func(t *testing.T) {
		t.Parallel()
		civoManifestEdits(t)
	})
}

// The ways a manifest's field is edited.
const (
	mdSet     = "set"
	mdChanged = "changed"
	mdRemoved = "removed"
)

// noThirdValue is why a boolean's change is never made in the cloud too.
const noThirdValue = "a boolean has no third value: the cloud can only take the manifest's new one, which leaves up nothing to do"

// mdEdit is one row's change to one stack's manifest, and the cloud's change of the same field to
// a value neither the last up applied nor the manifest now says.
type mdEdit struct {
	// path is the row's; way how the manifest's field is edited; value its new value (nil when
	// removed); also other fields the manifest's rules make change with it.
	path, way string
	value     any
	also      map[string]any
	// cloud changes the field in the loopback cloud; nil when it cannot, noCloud says why.
	cloud   func()
	noCloud string
}

// mdStack is a deployed stack: its manifest's kind, file, text as deployed, and key.
type mdStack struct {
	kind, file, text, key string
}

// mdPart is a stack's edits in a round.
type mdPart struct {
	stack *mdStack
	edits []mdEdit
}

// mdReport is the JSON report of drift and status.
type mdReport struct {
	Stacks []mdStackReport `json:"stacks"`
}

type mdStackReport struct {
	File, Stack, Outcome, Reason, Error string
	Drift, Pending                      []mdField
	Status                              *statusJSON `json:"status"`
}

type mdField struct {
	Field                    string
	Live, Manifest, Recorded any
}

// manifestDiff runs the rounds of one cloud's stacks.
type manifestDiff struct {
	e *env
	// snapshot keeps what the cloud holds and returns what puts it back.
	snapshot func() (restore func())
	// derived are the tags clusterplane derives that the manifests make: never a user's value.
	derived []string
}

// deploy writes the manifests and deploys them in one up.
func (m *manifestDiff) deploy(t *testing.T, stacks ...*mdStack) {
	t.Helper()
	var files []string
	for _, s := range stacks {
		s.file = m.e.write(s.key[strings.Index(s.key, "/")+1:]+".yaml", s.text)
		files = append(files, s.file)
	}
	if r, code := m.e.clusterplane(append([]string{"up", "--yes", "-q"}, files...)...); code != 0 {
		t.Fatalf("up of the stacks = %d: %s", code, r)
	}
}

// covers fails the test for each row of kind's table that no edit of rounds makes and skip does
// not explain, and for each skip that names no such row: every read-back row is held.
func covers(t *testing.T, kind string, rounds [][]mdPart, skip map[string]string) {
	t.Helper()
	table := registry.Kinds().Table(kind)
	made := map[string][]string{}
	for _, round := range rounds {
		for _, p := range round {
			if p.stack.kind != kind {
				continue
			}
			for _, ed := range p.edits {
				made[ed.path] = append(made[ed.path], ed.way)
			}
		}
	}
	rows := map[string]bool{}
	for _, row := range table.Rows {
		if row.Attribute == "" || row.Resource == effects.Provider || row.Resource == effects.Component {
			continue
		}
		rows[row.Path] = true
		switch _, attr, _ := strings.Cut(row.Attribute, "."); {
		case skip[row.Path] != "":
			if len(made[row.Path]) > 0 {
				t.Errorf("%s %s is both skipped (%s) and edited", kind, row.Path, skip[row.Path])
			}
		case table.NeverReadBack[propertyOf(row)]:
			// Never read back (the table's NeverReadBack): outside this promise.
		case len(made[row.Path]) == 0:
			t.Errorf("%s %s (%s): no round edits it, and no skip says why", kind, row.Path, attr)
		default:
			t.Logf("%s %s: %s in the manifest", kind, row.Path, strings.Join(made[row.Path], ", "))
		}
	}
	for path := range skip {
		if !rows[path] {
			t.Errorf("%s: the skip of %s names no read-back row of the effects table", kind, path)
		}
	}
}

// round makes its parts' edits in the manifests alone and holds drift, drift --deep and status
// --drift to them; then makes them in the cloud too and holds drift to them (each field drift,
// and still pending); then puts the manifests and the cloud back as deployed.
func (m *manifestDiff) round(t *testing.T, name string, parts []mdPart) {
	start := time.Now()
	var files, cloudFiles []string
	for _, p := range parts {
		m.e.write(p.stack.key[strings.Index(p.stack.key, "/")+1:]+".yaml", edited(t, p.stack.text, p.edits))
		files = append(files, p.stack.file)
		if slices.ContainsFunc(p.edits, func(ed mdEdit) bool { return ed.cloud != nil }) {
			cloudFiles = append(cloudFiles, p.stack.file)
		}
	}
	defer func() {
		for _, p := range parts {
			m.e.write(p.stack.key[strings.Index(p.stack.key, "/")+1:]+".yaml", p.stack.text)
		}
	}()

	for _, cmd := range [][]string{{"drift"}, {"drift", "--deep"}} {
		what := strings.Join(cmd, " ")
		rep, code, r, ok := m.report(t, append(cmd, files...))
		if !ok {
			continue
		}
		if code != 0 {
			t.Errorf("%s: %s after edits of the manifests alone = %d, want 0 (pending is no drift):\n%s", name, what, code, outcomes(rep))
		}
		if len(rep.Stacks) != len(parts) {
			t.Errorf("%s: %s reports %d stacks, want %d: %s", name, what, len(rep.Stacks), len(parts), r)
		}
		for _, p := range parts {
			m.manifestOnly(t, name, what, rep, p)
		}
	}
	m.statusInSync(t, name, parts, files)
	t.Logf("%s: the manifests alone judged in %s", name, time.Since(start).Round(time.Second))

	m.cloudToo(t, name, parts, cloudFiles, start)
}

// statusInSync holds status --drift to the manifests' edits alone: Drifted=False for every stack.
func (m *manifestDiff) statusInSync(t *testing.T, name string, parts []mdPart, files []string) {
	rep, code, r, ok := m.report(t, append([]string{"status", "--drift"}, files...))
	// 4 is status's not-ready exit: each manifest changed since its last up (ManifestChanged).
	if code != 0 && code != 4 {
		t.Errorf("%s: status --drift after edits of the manifests alone = %d, want 0 or 4: %s", name, code, r)
	}
	for _, p := range parts {
		s, found := rep.stack(p.stack.key)
		if !ok {
			break
		}
		if !found || s.Status == nil {
			t.Errorf("%s: status --drift reports no status of %s: %s", name, p.stack.key, r)
			continue
		}
		if status, reason, message := conditionOf(*s.Status, "Drifted"); status != "False" {
			t.Errorf("%s: status --drift of %s after %s edited in the manifest alone: Drifted=%s/%s (%s), want False",
				name, p.stack.key, describeEdits(p.edits), status, reason, message)
		}
	}
}

// cloudToo makes the parts' edits in the cloud too and holds drift to them: each field drift, and
// still pending; then puts the cloud back as deployed.
func (m *manifestDiff) cloudToo(t *testing.T, name string, parts []mdPart, cloudFiles []string, start time.Time) {
	if len(cloudFiles) == 0 {
		return
	}
	restore := m.snapshot()
	defer restore()
	for _, p := range parts {
		// Rows that send one property (metadata's fields and spec.tags are all tags) share the
		// cloud's change of it, made once.
		made := map[string]bool{}
		table := registry.Kinds().Table(p.stack.kind)
		for _, ed := range p.edits {
			if property := rowProperty(table, ed.path); ed.cloud != nil && !made[property] {
				made[property] = true
				ed.cloud()
			}
		}
	}
	rep, code, r, ok := m.report(t, append([]string{"drift"}, cloudFiles...))
	if !ok {
		return
	}
	if code != 3 {
		t.Errorf("%s: drift after the same fields changed in the cloud too = %d, want 3 (drift):\n%s", name, code, outcomes(rep))
	}
	for _, p := range parts {
		if !slices.Contains(cloudFiles, p.stack.file) {
			continue
		}
		s, ok := rep.stack(p.stack.key)
		if !ok {
			t.Errorf("%s: drift reports no stack %s: %s", name, p.stack.key, r)
			continue
		}
		m.noDerivedTags(t, name, "drift after the cloud's change", p, s)
		table := registry.Kinds().Table(p.stack.kind)
		drifted, pending := fieldProperties(table, s.Drift), fieldProperties(table, s.Pending)
		for _, ed := range p.edits {
			// A field the manifest and the cloud both changed is both (docs/deploying.md, Drift).
			if !covered(pending, rowProperty(table, ed.path)) {
				t.Errorf("%s: %s %s %s in the manifest, the cloud changed too: drift no longer lists the manifest's edit as pending "+
					"(outcome %s: %s; drift %s; pending %s)", name, p.stack.key, ed.path, ed.way, s.Outcome, s.Reason, showFields(s.Drift), showFields(s.Pending))
			}
			if ed.cloud == nil {
				continue
			}
			if !covered(drifted, rowProperty(table, ed.path)) {
				t.Errorf("%s: %s %s %s in the manifest, then changed in the cloud to a third value: drift does not list it as drift "+
					"(outcome %s: %s; drift %s; pending %s)", name, p.stack.key, ed.path, ed.way, s.Outcome, s.Reason, showFields(s.Drift), showFields(s.Pending))
			}
		}
	}
	t.Logf("%s: took %s", name, time.Since(start).Round(time.Second))
}

// manifestOnly holds one stack's report of cmd (drift, or drift --deep) after its edits in the
// manifest alone: done, nothing drifted, every edited field pending.
func (m *manifestDiff) manifestOnly(t *testing.T, name, cmd string, rep mdReport, p mdPart) {
	t.Helper()
	s, ok := rep.stack(p.stack.key)
	if !ok {
		t.Errorf("%s: %s reports no stack %s", name, cmd, p.stack.key)
		return
	}
	table := registry.Kinds().Table(p.stack.kind)
	m.noDerivedTags(t, name, cmd, p, s)
	if s.Outcome != "done" {
		t.Errorf("%s: %s of %s after %s edited in the manifest alone: %s (%s)%s, want done, the fields pending",
			name, cmd, p.stack.key, describeEdits(p.edits), s.Outcome, s.Reason, prefixed(": ", s.Error))
	}
	for _, d := range s.Drift {
		t.Errorf("%s: %s of %s lists %s as drift after %s edited in the manifest alone: the cloud has %s, the manifest %s, the last up applied %s",
			name, cmd, p.stack.key, d.Field, editsSending(table, p.edits, d.Field), show(d.Live), show(d.Manifest), show(d.Recorded))
	}
	pending := fieldProperties(table, s.Pending)
	for _, ed := range p.edits {
		if !covered(pending, rowProperty(table, ed.path)) {
			t.Errorf("%s: %s of %s: %s %s in the manifest alone is not listed as pending (pending %s; outcome %s: %s)",
				name, cmd, p.stack.key, ed.path, ed.way, showFields(s.Pending), s.Outcome, s.Reason)
		}
	}
}

// noDerivedTags fails the test for each value of s's drift and pending that holds a tag
// clusterplane derives from the manifest's metadata: the user wrote none of them.
func (m *manifestDiff) noDerivedTags(t *testing.T, name, cmd string, p mdPart, s mdStackReport) {
	t.Helper()
	for list, fields := range map[string][]mdField{"drift": s.Drift, "pending": s.Pending} {
		for _, f := range fields {
			for what, v := range map[string]any{"the cloud's": f.Live, "the manifest's": f.Manifest, "the recorded": f.Recorded} {
				if tag, ok := m.derivedIn(v); ok {
					t.Errorf("%s: %s of %s: %s lists %s with %s value %s, which holds %q, a tag clusterplane derives, not the user's",
						name, cmd, p.stack.key, list, f.Field, what, show(v), tag)
				}
			}
		}
	}
}

// derivedIn finds a derived tag in v.
func (m *manifestDiff) derivedIn(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		for _, s := range strings.Fields(v) {
			for _, d := range m.derived {
				if s == d || strings.HasSuffix(d, ":") && strings.HasPrefix(s, d) {
					return s, true
				}
			}
		}
	case []any:
		for _, e := range v {
			if tag, ok := m.derivedIn(e); ok {
				return tag, true
			}
		}
	case map[string]any:
		for _, e := range v {
			if tag, ok := m.derivedIn(e); ok {
				return tag, true
			}
		}
	}
	return "", false
}

// derivedTags are the tag prefixes of every label labels.Standard derives, and the tags the
// manifests' metadata.labels become.
func derivedTags(metadataLabels ...string) []string {
	out := []string{labels.ResourceKind + ":", labels.ResourceName + ":", labels.ResourceID + ":", labels.Organization + ":", labels.Environment + ":"}
	return append(out, metadataLabels...)
}

// report runs clusterplane with -o json and reads its report; false, the test failed, when it
// printed none.
func (m *manifestDiff) report(t *testing.T, args []string) (mdReport, int, result, bool) {
	t.Helper()
	r, code := m.e.clusterplane(append(args, "-o", "json")...)
	var rep mdReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Errorf("clusterplane %s -o json = %d, no report: %v\n%s", strings.Join(args, " "), code, err, r)
		return rep, code, r, false
	}
	return rep, code, r, true
}

func (r mdReport) stack(key string) (mdStackReport, bool) {
	for _, s := range r.Stacks {
		if s.Stack == key {
			return s, true
		}
	}
	return mdStackReport{}, false
}

// outcomes says each stack's outcome and reason, a line each.
func outcomes(rep mdReport) string {
	var b strings.Builder
	for _, s := range rep.Stacks {
		fmt.Fprintf(&b, "  %s: %s (%s)%s; drift %s; pending %s\n", s.Stack, s.Outcome, s.Reason, prefixed(": ", s.Error),
			showFields(s.Drift), showFields(s.Pending))
	}
	return b.String()
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// edited is text with the edits made: the manifest as JSON, which the manifests' reader takes as
// it takes YAML.
func edited(t *testing.T, text string, edits []mdEdit) string {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	for _, ed := range edits {
		setAt(m, ed.path, ed.value)
		for path, v := range ed.also {
			setAt(m, path, v)
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// setAt sets the dotted path of m to v, or removes it when v is nil.
func setAt(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

// rowProperty is the property the row of path sends (Pulumi names), the path itself when no row
// sends one.
func rowProperty(table *effects.Table, path string) string {
	row, ok := table.Lookup(path)
	if !ok || row.Attribute == "" {
		return path
	}
	return propertyOf(row)
}

// fieldProperties are the properties of the fields a report lists ("a or b": a's).
func fieldProperties(table *effects.Table, fields []mdField) []string {
	var out []string
	for _, f := range fields {
		first, _, _ := strings.Cut(f.Field, " or ")
		out = append(out, rowProperty(table, first))
	}
	return out
}

// editsSending says which of edits send the property of field, the field alone when none does.
func editsSending(table *effects.Table, edits []mdEdit, field string) string {
	first, _, _ := strings.Cut(field, " or ")
	p := rowProperty(table, first)
	var out []string
	for _, ed := range edits {
		if covered([]string{p}, rowProperty(table, ed.path)) {
			out = append(out, ed.path+" "+ed.way)
		}
	}
	if len(out) == 0 {
		return "no field sending it (" + describeEdits(edits) + ")"
	}
	return strings.Join(out, ", ")
}

func describeEdits(edits []mdEdit) string {
	var out []string
	for _, ed := range edits {
		out = append(out, ed.path+" "+ed.way)
	}
	return strings.Join(out, ", ")
}

func show(v any) string {
	if v == nil {
		return "nothing"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func showFields(fields []mdField) string {
	if len(fields) == 0 {
		return "none"
	}
	var out []string
	for _, f := range fields {
		out = append(out, fmt.Sprintf("%s (cloud %s, manifest %s, recorded %s)", f.Field, show(f.Live), show(f.Manifest), show(f.Recorded)))
	}
	return strings.Join(out, "; ")
}

// withMetadata adds lines to a manifest's metadata.
func withMetadata(manifest, lines string) string {
	return strings.Replace(manifest, "\nmetadata:\n", "\nmetadata:\n"+lines, 1)
}

// The metadata the full manifests add to scandiff's, so that metadata's fields can be changed and
// removed; the tag its label becomes.
const (
	mdMetadata   = "  id: first-id\n  org: acme\n  labels: {cost-center: cc1}\n"
	mdLabelTag   = "cost-center:"
	mdRolloutPol = "  rollout:\n    strategy: ROTATE\n"
)

// metadataEdits change (or remove) every metadata field that becomes a tag but env, which names
// the stack (effects.MetadataRows: refused, identity); set puts them on a manifest without.
func metadataEdits(way string, cloud func()) []mdEdit {
	values := map[string]any{"metadata.id": "second-id", "metadata.org": "acme-two", "metadata.labels": map[string]any{"cost-center": "cc2"}}
	if way == mdSet {
		values["metadata.labels"] = map[string]any{"cost-center": "cc9"}
	}
	var out []mdEdit
	for _, path := range []string{"metadata.id", "metadata.labels", "metadata.org"} {
		ed := mdEdit{path: path, way: way, value: values[path], cloud: cloud}
		if way == mdRemoved {
			ed.value = nil
		}
		out = append(out, ed)
	}
	return out
}

// doManifestEdits holds the promise on DigitalOcean's two kinds.
func doManifestEdits(t *testing.T) {
	start := time.Now()
	e := newEnv(t)
	e.seedExamples()
	// VPCs in the clusters' region: one a manifest moves to, one the cloud does.
	vpcManifest, vpcCloud := "2a4b6c8d-1e3f-4a5b-8c7d-9e0f1a2b3c4d", "3b5c7d9e-2f4a-4b6c-9d8e-0f1a2b3c4d5e"
	e.do.Account().SeedVPC(vpcManifest, "fra1")
	e.do.Account().SeedVPC(vpcCloud, "fra1")

	full := &mdStack{kind: "DigitalOceanKubernetesCluster", key: "digitaloceankubernetescluster/full", text: withMetadata(doFullCluster, mdMetadata)}
	minimal := &mdStack{kind: "DigitalOceanKubernetesCluster", key: "digitaloceankubernetescluster/minimal", text: doMinimalCluster}
	// The minimal cluster with its deletion protection on, as a manifest without the field has it.
	protected := &mdStack{kind: "DigitalOceanKubernetesCluster", key: "digitaloceankubernetescluster/protected",
		text: strings.Replace(strings.ReplaceAll(doMinimalCluster, "minimal", "protected"), "  deletionProtection: false\n", "", 1)}
	// The pools join the seeded cluster, so that one up deploys every stack; the full pool rotates.
	fullPool := &mdStack{kind: "DigitalOceanKubernetesNodePool", key: "digitaloceankubernetesnodepool/fullpool",
		text: withMetadata(strings.ReplaceAll(doFullPool, "CLUSTER", doClusterID), mdMetadata) + mdRolloutPol}
	minimalPool := &mdStack{kind: "DigitalOceanKubernetesNodePool", key: "digitaloceankubernetesnodepool/minimalpool",
		text: strings.ReplaceAll(doMinimalPool, "CLUSTER", doClusterID)}
	m := &manifestDiff{e: e, derived: derivedTags(mdLabelTag)}
	m.deploy(t, full, minimal, protected, fullPool, minimalPool)
	t.Logf("DigitalOcean: deployed in %s", time.Since(start).Round(time.Second))

	ids := map[string]string{"full": e.doCluster("full").ID, "minimal": e.doCluster("minimal").ID, "protected": e.doCluster("protected").ID}
	m.snapshot = func() func() {
		saved := map[string]godo.KubernetesCluster{}
		for _, id := range []string{ids["full"], ids["minimal"], ids["protected"], doClusterID} {
			saved[id], _ = e.do.Cluster(id)
		}
		return func() {
			for id, c := range saved {
				e.do.EditCluster(id, func(now *godo.KubernetesCluster) { *now = c })
			}
		}
	}
	c := newDOCloud(t, e, ids)
	bools := func(way string, value any, paths ...string) []mdEdit {
		var out []mdEdit
		for _, p := range paths {
			out = append(out, mdEdit{path: p, way: way, value: value, noCloud: noThirdValue})
		}
		return out
	}
	plugins := []string{"spec.routingAgent", "spec.nvidiaGpuDevicePlugin", "spec.amdGpuDevicePlugin", "spec.amdGpuDeviceMetricsExporterPlugin",
		"spec.rdmaSharedDevicePlugin"}
	taint := func(key, value, effect string) []any {
		return []any{map[string]any{"key": key, "value": value, "effect": effect}}
	}

	// Round 1: every field of the full cluster and pool changed; every field the minimal ones lack
	// set; the protected cluster's default pool resized.
	fullChanged := append([]mdEdit{
		{path: "spec.clusterName", way: mdChanged, value: "full-edited", cloud: c.cluster("full", func(c *godo.KubernetesCluster) { c.Name = "full-cloud" })},
		{path: "spec.region", way: mdChanged, value: "ams3", cloud: c.cluster("full", func(c *godo.KubernetesCluster) { c.RegionSlug = "nyc1" })},
		{path: "spec.maintenanceWindow", way: mdChanged, value: map[string]any{"day": "tuesday", "startTime": "04:00"}, cloud: c.window("full")},
		{path: "spec.controlPlaneFirewallAllowedAddresses", way: mdChanged, value: []any{"203.0.113.8"}, cloud: c.firewall("full")},
		{path: "spec.clusterSubnet", way: mdChanged, value: "10.246.0.0/16",
			cloud: c.cluster("full", func(c *godo.KubernetesCluster) { c.ClusterSubnet = "10.247.0.0/16" })},
		{path: "spec.serviceSubnet", way: mdChanged, value: "10.248.0.0/16",
			cloud: c.cluster("full", func(c *godo.KubernetesCluster) { c.ServiceSubnet = "10.249.0.0/16" })},
		{path: "spec.clusterAutoscaler", way: mdChanged, value: map[string]any{"scaleDownUtilizationThreshold": 0.5, "scaleDownUnneededTime": "15m"},
			cloud: c.autoscaler("full")},
		{path: "spec.defaultNodePool.nodePoolName", way: mdChanged, value: "system-edited", cloud: c.poolName("full")},
		// A replacement of the whole (unprotected) cluster: pending, as a manifest's change is.
		{path: "spec.defaultNodePool.size", way: mdChanged, value: "s-4vcpu-8gb",
			cloud: c.defaultPool("full", func(p *godo.KubernetesNodePool) { p.Size = "s-8vcpu-16gb" })},
		{path: "spec.defaultNodePool.nodeCount", way: mdChanged, value: 3, cloud: c.defaultPool("full", func(p *godo.KubernetesNodePool) { p.Count = 4 })},
		{path: "spec.defaultNodePool.labels", way: mdChanged, value: map[string]any{"workload": "edited"}, cloud: c.poolLabels(c.onDefault("full"))},
		{path: "spec.defaultNodePool.taints", way: mdChanged, value: taint("dedicated", "edited", "NoSchedule"), cloud: c.poolTaints(c.onDefault("full"))},
		{path: "spec.defaultNodePool.tags", way: mdChanged, value: []any{"pool-edited"}, cloud: c.poolTags(c.onDefault("full"))},
		{path: "spec.tags", way: mdChanged, value: []any{"team-edited"}, cloud: c.tags("full")},
	}, bools(mdChanged, false, append([]string{"spec.highlyAvailable", "spec.autoUpgrade"}, plugins...)...)...)
	fullChanged = append(fullChanged, metadataEdits(mdChanged, c.tags("full"))...)
	minimalSet := append([]mdEdit{
		// The last up left the VPC to the cloud (spec.vpc unset; vpc_uuid is optional and
		// computed): which VPC the cloud gives the cluster is no drift of what that up applied.
		{path: "spec.vpc", way: mdSet, value: map[string]any{"value": vpcManifest},
			noCloud: "the last up left the VPC to the cloud (vpc_uuid optional and computed): its choice is no drift"},
		{path: "spec.maintenanceWindow", way: mdSet, value: map[string]any{"day": "wednesday", "startTime": "02:00"}, cloud: c.window("minimal")},
		{path: "spec.controlPlaneFirewallAllowedAddresses", way: mdSet, value: []any{"203.0.113.20"}, cloud: c.firewall("minimal")},
		{path: "spec.clusterAutoscaler", way: mdSet, value: map[string]any{"scaleDownUtilizationThreshold": 0.6, "scaleDownUnneededTime": "5m"},
			cloud: c.autoscaler("minimal")},
		{path: "spec.defaultNodePool.nodePoolName", way: mdSet, value: "pool-set", cloud: c.poolName("minimal")},
		{path: "spec.defaultNodePool.autoScale", way: mdSet, value: true, noCloud: noThirdValue},
		{path: "spec.defaultNodePool.minNodes", way: mdSet, value: 1, cloud: c.defaultPool("minimal", func(p *godo.KubernetesNodePool) { p.MinNodes = 2 })},
		{path: "spec.defaultNodePool.maxNodes", way: mdSet, value: 3, cloud: c.defaultPool("minimal", func(p *godo.KubernetesNodePool) { p.MaxNodes = 4 })},
		{path: "spec.defaultNodePool.labels", way: mdSet, value: map[string]any{"tier": "set"}, cloud: c.poolLabels(c.onDefault("minimal"))},
		{path: "spec.defaultNodePool.taints", way: mdSet, value: taint("tier", "set", "NoSchedule"), cloud: c.poolTaints(c.onDefault("minimal"))},
		{path: "spec.defaultNodePool.tags", way: mdSet, value: []any{"pool-set"}, cloud: c.poolTags(c.onDefault("minimal"))},
		{path: "spec.tags", way: mdSet, value: []any{"team-set"}, cloud: c.tags("minimal")},
	}, bools(mdSet, true, append([]string{"spec.highlyAvailable", "spec.autoUpgrade", "spec.disableSurgeUpgrade"}, plugins...)...)...)
	// Changed in the cloud too, the protected cluster's default pool makes the engine refuse the
	// preview (a replacement of a protected cluster): drift then names the protection, not the
	// field, so the cloud's change is held by scandiff's protected case, not here.
	protectedResized := []mdEdit{{path: "spec.defaultNodePool.size", way: mdChanged, value: "s-4vcpu-8gb",
		noCloud: "the engine refuses the preview of a protected cluster's replacement: drift names the protection, not the field"}}
	fullPoolChanged := append([]mdEdit{
		// A rotation: the pool's manifest carries a rollout block.
		{path: "spec.size", way: mdChanged, value: "s-4vcpu-8gb", cloud: c.pool("fullpool", func(p *godo.KubernetesNodePool) { p.Size = "s-8vcpu-16gb" })},
		{path: "spec.nodeCount", way: mdChanged, value: 3, cloud: c.pool("fullpool", func(p *godo.KubernetesNodePool) { p.Count = 4 })},
		{path: "spec.labels", way: mdChanged, value: map[string]any{"workload": "edited"}, cloud: c.poolLabels(c.onPool("fullpool"))},
		{path: "spec.taints", way: mdChanged, value: taint("dedicated", "edited", "NoSchedule"), cloud: c.poolTaints(c.onPool("fullpool"))},
		{path: "spec.tags", way: mdChanged, value: []any{"pool-edited"}, cloud: c.poolTags(c.onPool("fullpool"))},
	}, metadataEdits(mdChanged, c.poolTags(c.onPool("fullpool")))...)
	minimalPoolSet := []mdEdit{
		{path: "spec.autoScale", way: mdSet, value: true, noCloud: noThirdValue},
		{path: "spec.minNodes", way: mdSet, value: 1, cloud: c.pool("minimalpool", func(p *godo.KubernetesNodePool) { p.MinNodes = 2 })},
		{path: "spec.maxNodes", way: mdSet, value: 3, cloud: c.pool("minimalpool", func(p *godo.KubernetesNodePool) { p.MaxNodes = 4 })},
		{path: "spec.labels", way: mdSet, value: map[string]any{"tier": "set"}, cloud: c.poolLabels(c.onPool("minimalpool"))},
		{path: "spec.taints", way: mdSet, value: taint("tier", "set", "NoSchedule"), cloud: c.poolTaints(c.onPool("minimalpool"))},
		{path: "spec.tags", way: mdSet, value: []any{"pool-set"}, cloud: c.poolTags(c.onPool("minimalpool"))},
	}

	// Round 2: what the full ones may lose removed; the changes that would clash with the first
	// round's (a version patch, which autoUpgrade would leave to DigitalOcean; metadata beside
	// spec.tags, both sent as the tags) made on the minimal ones.
	fullRemoved := append([]mdEdit{
		{path: "spec.maintenanceWindow", way: mdRemoved, cloud: c.window("full")},
		{path: "spec.controlPlaneFirewallAllowedAddresses", way: mdRemoved, cloud: c.firewall("full")},
		{path: "spec.clusterAutoscaler", way: mdRemoved, cloud: c.autoscaler("full")},
		{path: "spec.defaultNodePool.nodePoolName", way: mdRemoved, cloud: c.poolName("full")},
		// Removing the labels is refused as not applied (doeffects.DOLabelsCleared): the
		// preview still shows the change, so it is pending like any other.
		{path: "spec.defaultNodePool.labels", way: mdRemoved, cloud: c.poolLabels(c.onDefault("full"))},
		{path: "spec.defaultNodePool.taints", way: mdRemoved, cloud: c.poolTaints(c.onDefault("full"))},
		{path: "spec.defaultNodePool.tags", way: mdRemoved, cloud: c.poolTags(c.onDefault("full"))},
		{path: "spec.tags", way: mdRemoved, cloud: c.tags("full")},
		// Not removed: spec.clusterSubnet, spec.serviceSubnet and the five plugins, whose removal
		// the effects table says is kept (doeffects.DOKeptWhenUnsent, DOComponentKept): the
		// provider keeps the value, so no preview shows a change; spec.clusterName, region,
		// kubernetesVersion, defaultNodePool.size and nodeCount (without autoScale), which the
		// manifest requires.
	}, bools(mdRemoved, nil, "spec.highlyAvailable", "spec.autoUpgrade")...)
	fullRemoved = append(fullRemoved, metadataEdits(mdRemoved, c.tags("full"))...)
	minimalChanged := append([]mdEdit{
		// A later patch of the running minor (the loopback offers 1.31.9-do.0 and -do.2).
		{path: "spec.kubernetesVersion", way: mdChanged, value: "1.31.9-do.2",
			cloud: c.cluster("minimal", func(c *godo.KubernetesCluster) { c.VersionSlug = "1.31.9-do.0" })},
	}, metadataEdits(mdSet, c.tags("minimal"))...)
	fullPoolRemoved := append([]mdEdit{
		{path: "spec.nodePoolName", way: mdChanged, value: "fullpool-edited",
			cloud: c.pool("fullpool", func(p *godo.KubernetesNodePool) { p.Name = "fullpool-cloud" })},
		{path: "spec.labels", way: mdRemoved, cloud: c.poolLabels(c.onPool("fullpool"))},
		{path: "spec.taints", way: mdRemoved, cloud: c.poolTaints(c.onPool("fullpool"))},
		{path: "spec.tags", way: mdRemoved, cloud: c.poolTags(c.onPool("fullpool"))},
	}, metadataEdits(mdRemoved, c.poolTags(c.onPool("fullpool")))...)
	minimalPoolMoved := append([]mdEdit{
		// Another cluster: a replacement. The cloud cannot move a pool (scandiff's skip of
		// cluster_id), so the cloud's change is not made.
		{path: "spec.cluster", way: mdChanged, value: map[string]any{"value": doGPUClusterID}, noCloud: "a pool cannot move between clusters"},
	}, metadataEdits(mdSet, c.poolTags(c.onPool("minimalpool")))...)

	rounds := [][]mdPart{
		{{full, fullChanged}, {minimal, minimalSet}, {protected, protectedResized}, {fullPool, fullPoolChanged}, {minimalPool, minimalPoolSet}},
		{{full, fullRemoved}, {minimal, minimalChanged}, {fullPool, fullPoolRemoved}, {minimalPool, minimalPoolMoved}},
	}
	identity := "refused as identity (effects.MetadataRows): metadata.env names the stack, so a manifest with another env is another stack, never an edit"
	covers(t, "DigitalOceanKubernetesCluster", rounds, map[string]string{
		"metadata.env": identity,
		// Recorded in state only (the effects table's reason) and never read from the cloud: the
		// fleet scan's differential leaves it out as well.
		"spec.kubeconfigExpireSeconds": "recorded in state only; the provider never reads it from the cloud",
	})
	covers(t, "DigitalOceanKubernetesNodePool", rounds, map[string]string{"metadata.env": identity})
	for i, round := range rounds {
		m.round(t, fmt.Sprintf("DigitalOcean round %d", i+1), round)
	}
	t.Logf("DigitalOcean: took %s", time.Since(start).Round(time.Second))
}

// doCloud makes, in the DigitalOcean loopback, the cloud's changes the rounds make: each field
// returns the change to make, by what it changes.
type doCloud struct {
	cluster                                      func(name string, edit func(c *godo.KubernetesCluster)) func()
	defaultPool, pool                            func(name string, edit func(p *godo.KubernetesNodePool)) func()
	tags, window, firewall, autoscaler, poolName func(name string) func()
	poolLabels, poolTaints, poolTags             func(edit func(func(*godo.KubernetesNodePool)) func()) func()
	onDefault, onPool                            func(name string) func(func(*godo.KubernetesNodePool)) func()
}

// newDOCloud is the loopback's changes for the clusters of ids (by name) and the seeded cluster's pools.
func newDOCloud(t *testing.T, e *env, ids map[string]string) *doCloud {
	c := &doCloud{}
	c.cluster = func(name string, edit func(c *godo.KubernetesCluster)) func() {
		return func() {
			if !e.do.EditCluster(ids[name], edit) {
				t.Fatalf("DigitalOcean has no cluster %s", name)
			}
		}
	}
	// defaultPool edits the cluster's default pool, the one its provider finds by its tag.
	c.defaultPool = func(name string, edit func(p *godo.KubernetesNodePool)) func() {
		return c.cluster(name, func(c *godo.KubernetesCluster) {
			for _, p := range c.NodePools {
				if slices.Contains(p.Tags, "terraform:default-node-pool") {
					edit(p)
					return
				}
			}
			t.Fatalf("DigitalOcean's cluster %s has no default pool", name)
		})
	}
	c.pool = func(name string, edit func(p *godo.KubernetesNodePool)) func() {
		id := e.doPool(doClusterID, name).ID
		return func() {
			if !e.do.EditPool(doClusterID, id, edit) {
				t.Fatalf("DigitalOcean has no pool %s", name)
			}
		}
	}
	// The cloud's third values, by what they change.
	c.tags = func(name string) func() {
		return c.cluster(name, func(c *godo.KubernetesCluster) { c.Tags = append(c.Tags, "team-cloud") })
	}
	c.window = func(name string) func() {
		return c.cluster(name, func(c *godo.KubernetesCluster) {
			c.MaintenancePolicy = &godo.KubernetesMaintenancePolicy{Day: godo.KubernetesMaintenanceDayMonday, StartTime: "05:00", Duration: "4h0m0s"}
		})
	}
	c.firewall = func(name string) func() {
		return c.cluster(name, func(c *godo.KubernetesCluster) {
			on := true
			c.ControlPlaneFirewall = &godo.KubernetesControlPlaneFirewall{Enabled: &on, AllowedAddresses: []string{"203.0.113.99"}}
		})
	}
	c.autoscaler = func(name string) func() {
		return c.cluster(name, func(c *godo.KubernetesCluster) {
			threshold, unneeded := 0.7, "20m"
			c.ClusterAutoscalerConfiguration = &godo.KubernetesClusterAutoscalerConfiguration{ScaleDownUtilizationThreshold: &threshold,
				ScaleDownUnneededTime: &unneeded}
		})
	}
	c.poolName = func(name string) func() {
		return c.defaultPool(name, func(p *godo.KubernetesNodePool) { p.Name = "pool-cloud" })
	}
	c.poolLabels = func(edit func(func(*godo.KubernetesNodePool)) func()) func() {
		return edit(func(p *godo.KubernetesNodePool) { p.Labels = map[string]string{"tier": "cloud"} })
	}
	c.poolTaints = func(edit func(func(*godo.KubernetesNodePool)) func()) func() {
		return edit(func(p *godo.KubernetesNodePool) {
			p.Taints = []godo.Taint{{Key: "tier", Value: "cloud", Effect: "NoExecute"}}
		})
	}
	c.poolTags = func(edit func(func(*godo.KubernetesNodePool)) func()) func() {
		return edit(func(p *godo.KubernetesNodePool) { p.Tags = append(p.Tags, "pool-cloud") })
	}
	c.onDefault = func(name string) func(func(*godo.KubernetesNodePool)) func() {
		return func(f func(*godo.KubernetesNodePool)) func() { return c.defaultPool(name, f) }
	}
	c.onPool = func(name string) func(func(*godo.KubernetesNodePool)) func() {
		return func(f func(*godo.KubernetesNodePool)) func() { return c.pool(name, f) }
	}
	return c
}

// civoManifestEdits holds the promise on Civo's two kinds.
func civoManifestEdits(t *testing.T) {
	start := time.Now()
	e := newEnv(t)
	e.seedExamples()
	// Firewalls on the minimal cluster's network: one its manifest moves it behind, one the cloud.
	const cminNetwork = "8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b"
	fwManifest, fwCloud := "4c6d8e0f-3a5b-4c7d-8e9f-1a2b3c4d5e6f", "5d7e9f1a-4b6c-4d8e-9f0a-2b3c4d5e6f7a"
	e.civo.Networking().SeedFirewall(fwManifest, "manifest-fw", "fra1", cminNetwork)
	e.civo.Networking().SeedFirewall(fwCloud, "cloud-fw", "fra1", cminNetwork)

	full := &mdStack{kind: "CivoKubernetesCluster", key: "civokubernetescluster/cfull", text: withMetadata(civoFullCluster, mdMetadata)}
	minimal := &mdStack{kind: "CivoKubernetesCluster", key: "civokubernetescluster/cmin", text: civoMinimalCluster}
	// A copy of the minimal cluster for the changes the provider fails at preview, each alone.
	refused := &mdStack{kind: "CivoKubernetesCluster", key: "civokubernetescluster/cbad", text: strings.ReplaceAll(civoMinimalCluster, "cmin", "cbad")}
	fullPool := &mdStack{kind: "CivoKubernetesNodePool", key: "civokubernetesnodepool/cpool", text: strings.ReplaceAll(civoManifestPool, "CLUSTER", civoClusterID) +
		"  labels: {workload: apps}\n  taints: [{key: dedicated, value: apps, effect: NoSchedule}]\n" + mdRolloutPol}
	minimalPool := &mdStack{kind: "CivoKubernetesNodePool", key: "civokubernetesnodepool/cpoolmin",
		text: strings.NewReplacer("CLUSTER", civoClusterID, "cpool", "cpoolmin", "g4s.kube.medium", "g4s.kube.small", "nodeCount: 2", "nodeCount: 1").Replace(civoManifestPool)}
	m := &manifestDiff{e: e, derived: derivedTags(mdLabelTag)}
	m.deploy(t, full, minimal, refused, fullPool, minimalPool)
	t.Logf("Civo: deployed in %s", time.Since(start).Round(time.Second))

	ids := map[string]string{}
	for _, name := range []string{"cfull", "cmin", "cbad"} {
		c, ok := e.civo.ClusterNamed(name)
		if !ok {
			t.Fatalf("Civo has no cluster %s", name)
		}
		ids[name] = c.ID
	}
	fwOf := func(name string) string { c, _ := e.civo.Cluster(ids[name]); return c.FirewallID }
	firewalls := []string{fwOf("cfull"), fwOf("cmin")}
	m.snapshot = civoSnapshot(t, e, ids, firewalls)
	c := newCivoCloud(t, e, ids, fwOf)
	// Read before any edit: EditCluster holds the loopback's lock while its edit runs.
	defaultNetwork := e.civo.DefaultNetworkID("fra1")
	noRegion := "Civo moves no cluster between regions (effects table: spec.region refused), and the loopback keeps each where it was made"
	noPoolState := "the plugin reads it from the stack's state, not from Civo (poolresource Read)"

	// Round 1: every field of the full cluster and pool changed; every field the minimal ones lack
	// set; the cluster type changed (failed at preview by the provider) alone on the third cluster.
	fullChanged := append([]mdEdit{
		{path: "spec.clusterName", way: mdChanged, value: "cfull-edited", cloud: c.cluster("cfull", func(c *civogo.KubernetesCluster) { c.Name = "cfull-cloud" })},
		{path: "spec.region", way: mdChanged, value: "lon1", noCloud: noRegion},
		{path: "spec.kubernetesVersion", way: mdChanged, value: "1.31.1-k3s1",
			cloud: c.cluster("cfull", func(c *civogo.KubernetesCluster) { c.KubernetesVersion = "1.29.8-k3s1" })},
		{path: "spec.network", way: mdChanged, value: map[string]any{"value": "8f4a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b"},
			cloud: c.cluster("cfull", func(c *civogo.KubernetesCluster) { c.NetworkID = defaultNetwork })},
		{path: "spec.apiServerAllowedCidrs", way: mdChanged, value: []any{"198.51.100.0/24"}, cloud: c.rule("cfull")},
		{path: "spec.defaultNodePool.size", way: mdChanged, value: "g4s.kube.large",
			cloud: c.firstPool("cfull", func(p *civogo.KubernetesPool) { p.Size = "g4s.kube.xlarge" })},
		{path: "spec.defaultNodePool.nodeCount", way: mdChanged, value: 4, cloud: c.firstPool("cfull", func(p *civogo.KubernetesPool) { p.Count = 5 })},
		{path: "spec.tags", way: mdChanged, value: []any{"team-edited"}, cloud: c.tags("cfull")},
	}, metadataEdits(mdChanged, c.tags("cfull"))...)
	minimalSet := []mdEdit{
		{path: "spec.apiServerAllowedCidrs", way: mdSet, value: []any{"198.51.100.0/24"}, cloud: c.rule("cmin")},
		{path: "spec.defaultNodePool.publicIpNodePool", way: mdSet, value: true, noCloud: noThirdValue},
		{path: "spec.tags", way: mdSet, value: []any{"team-set"}, cloud: c.tags("cmin")},
	}
	// A talos cluster needs a talos version (the spec's rule); the version's row is ignored for
	// talos (civoeffects.CivoVersion), so the type's row is what this judges.
	typeChanged := []mdEdit{{path: "spec.clusterType", way: mdChanged, value: "talos", also: map[string]any{"spec.kubernetesVersion": "talos-v1.5.0"},
		noCloud: "Civo has two cluster types: the cloud's only other one is the manifest's"}}
	fullPoolChanged := []mdEdit{
		// A rotation: the pool's manifest carries a rollout block.
		{path: "spec.size", way: mdChanged, value: "g4s.kube.large", cloud: c.pool("cpool", func(p *civogo.KubernetesPool) { p.Size = "g4s.kube.xlarge" })},
		{path: "spec.nodeCount", way: mdChanged, value: 3, cloud: c.pool("cpool", func(p *civogo.KubernetesPool) { p.Count = 4 })},
		{path: "spec.labels", way: mdChanged, value: map[string]any{"workload": "edited"}, cloud: c.poolLabels("cpool")},
		{path: "spec.taints", way: mdChanged, value: c.taint("dedicated", "edited"), cloud: c.poolTaints("cpool")},
	}
	minimalPoolSet := []mdEdit{
		{path: "spec.autoScale", way: mdSet, value: true, also: map[string]any{"spec.minNodes": 1, "spec.maxNodes": 2}, noCloud: noPoolState},
		// A replacement (no rollout block on this pool).
		{path: "spec.publicIpNodePool", way: mdSet, value: true, noCloud: noThirdValue},
		{path: "spec.labels", way: mdSet, value: map[string]any{"tier": "set"}, cloud: c.poolLabels("cpoolmin")},
		{path: "spec.taints", way: mdSet, value: c.taint("tier", "set"), cloud: c.poolTaints("cpoolmin")},
	}

	// Round 2: what the full ones may lose removed; on the minimal cluster a firewall of its own
	// (which its rules refuse beside apiServerAllowedCidrs) and metadata (sent as the tags, as
	// spec.tags is); the CNI (failed at preview) alone on the third.
	fullRemoved := append([]mdEdit{
		{path: "spec.apiServerAllowedCidrs", way: mdRemoved, cloud: c.rule("cfull")},
		{path: "spec.tags", way: mdRemoved, cloud: c.tags("cfull")},
		// Not removed: spec.network, whose removal the effects table says is kept
		// (civoeffects.CivoKeptWhenUnsent); the fields the manifest requires.
	}, metadataEdits(mdRemoved, c.tags("cfull"))...)
	minimalChanged := append([]mdEdit{
		{path: "spec.firewall", way: mdSet, value: map[string]any{"value": fwManifest},
			cloud: c.cluster("cmin", func(c *civogo.KubernetesCluster) { c.FirewallID = fwCloud })},
	}, metadataEdits(mdSet, c.tags("cmin"))...)
	cniSet := []mdEdit{{path: "spec.cni", way: mdSet, value: "cilium", noCloud: "Civo has two CNIs: the cloud's only other one is the manifest's"}}
	noPoolName := "a Civo pool's name is its id, and Civo renames none (effects table: spec.nodePoolName)"
	fullPoolRemoved := []mdEdit{
		{path: "spec.nodePoolName", way: mdChanged, value: "cpool-edited", noCloud: noPoolName},
		{path: "spec.labels", way: mdRemoved, cloud: c.poolLabels("cpool")},
		{path: "spec.taints", way: mdRemoved, cloud: c.poolTaints("cpool")},
	}
	minimalPoolMoved := []mdEdit{
		{path: "spec.cluster", way: mdChanged, value: map[string]any{"value": ids["cmin"]}, noCloud: "a pool cannot move between clusters"},
		{path: "spec.region", way: mdChanged, value: "lon1", noCloud: noPoolState},
	}

	rounds := [][]mdPart{
		{{full, fullChanged}, {minimal, minimalSet}, {refused, typeChanged}, {fullPool, fullPoolChanged}, {minimalPool, minimalPoolSet}},
		{{full, fullRemoved}, {minimal, minimalChanged}, {refused, cniSet}, {fullPool, fullPoolRemoved}, {minimalPool, minimalPoolMoved}},
	}
	covers(t, "CivoKubernetesCluster", rounds, map[string]string{
		"metadata.env": "refused as identity (effects.MetadataRows): metadata.env names the stack, so a manifest with another env is another stack",
		// The fleet scan's differential skips it for the same reason.
		"spec.applications":           "neither Civo's answer nor the provider's read holds what was installed at create",
		"spec.defaultNodePool.labels": "refused as invalid (effects table): the spec refuses every value, the pinned provider drops them (civo#380)",
		"spec.defaultNodePool.taints": "refused as invalid (effects table): the spec refuses every value, the pinned provider drops them (civo#380)",
	})
	covers(t, "CivoKubernetesNodePool", rounds, nil)
	for i, round := range rounds {
		m.round(t, fmt.Sprintf("Civo round %d", i+1), round)
	}
	t.Logf("Civo: took %s", time.Since(start).Round(time.Second))
}

// civoCloud makes, in the Civo loopback, the cloud's changes the rounds make: each field returns
// the change to make, by what it changes.
type civoCloud struct {
	cluster    func(name string, edit func(c *civogo.KubernetesCluster)) func()
	firstPool  func(name string, edit func(p *civogo.KubernetesPool)) func()
	tags, rule func(name string) func()
	pool       func(id string, edit func(p *civogo.KubernetesPool)) func()
	poolLabels func(id string) func()
	poolTaints func(id string) func()
	taint      func(key, value string) []any
}

// newCivoCloud is the loopback's changes for the clusters of ids (by name), whose firewall fwOf
// names, and the seeded cluster's pools.
func newCivoCloud(t *testing.T, e *env, ids map[string]string, fwOf func(name string) string) *civoCloud {
	c := &civoCloud{}
	c.cluster = func(name string, edit func(c *civogo.KubernetesCluster)) func() {
		return func() {
			if !e.civo.EditCluster(ids[name], edit) {
				t.Fatalf("Civo has no cluster %s", name)
			}
		}
	}
	c.tags = func(name string) func() {
		return c.cluster(name, func(c *civogo.KubernetesCluster) { c.Tags = append(c.Tags, "team-cloud") })
	}
	// rule opens ssh on the cluster's firewall, as scandiff's change of its rules does.
	c.rule = func(name string) func() {
		return func() {
			e.civoAPI(t, http.MethodPost, "/v2/firewalls/"+fwOf(name)+"/rules", `{"region":"FRA1","protocol":"tcp","start_port":"22",`+
				`"end_port":"22","cidr":["0.0.0.0/0"],"direction":"ingress","action":"allow","label":"ssh"}`)
		}
	}
	c.pool = func(id string, edit func(p *civogo.KubernetesPool)) func() {
		return func() {
			e.civo.EditCluster(civoClusterID, func(c *civogo.KubernetesCluster) {
				for i := range c.Pools {
					if c.Pools[i].ID == id {
						edit(&c.Pools[i])
						return
					}
				}
				t.Fatalf("Civo's cluster %s has no pool %s", civoClusterID, id)
			})
		}
	}
	c.poolLabels = func(id string) func() {
		return c.pool(id, func(p *civogo.KubernetesPool) { p.Labels = map[string]string{"tier": "cloud"} })
	}
	c.poolTaints = func(id string) func() {
		return c.pool(id, func(p *civogo.KubernetesPool) {
			p.Taints = []corev1.Taint{{Key: "tier", Value: "cloud", Effect: corev1.TaintEffectNoExecute}}
		})
	}
	c.taint = func(key, value string) []any {
		return []any{map[string]any{"key": key, "value": value, "effect": "NoSchedule"}}
	}
	c.firstPool = func(name string, edit func(p *civogo.KubernetesPool)) func() {
		return c.cluster(name, func(c *civogo.KubernetesCluster) { edit(&c.Pools[0]) })
	}
	return c
}

// civoSnapshot saves the Civo loopback's clusters of ids, the seeded cluster and the rules of
// firewalls, and returns what puts them back as saved.
func civoSnapshot(t *testing.T, e *env, ids map[string]string, firewalls []string) func() func() {
	return func() func() {
		saved := map[string]civogo.KubernetesCluster{}
		for _, id := range []string{ids["cfull"], ids["cmin"], ids["cbad"], civoClusterID} {
			saved[id], _ = e.civo.Cluster(id)
		}
		rules := map[string]bool{}
		for _, fw := range firewalls {
			f, _ := e.civo.Networking().Firewall(fw)
			for _, r := range f.Rules {
				rules[r.ID] = true
			}
		}
		return func() {
			for id, c := range saved {
				e.civo.EditCluster(id, func(now *civogo.KubernetesCluster) { *now = c })
			}
			for _, fw := range firewalls {
				f, _ := e.civo.Networking().Firewall(fw)
				for _, r := range f.Rules {
					if !rules[r.ID] {
						e.civoAPI(t, http.MethodDelete, "/v2/firewalls/"+fw+"/rules/"+r.ID+"?region=FRA1", "")
					}
				}
			}
		}
	}
}

// civoManifestPool is a Civo pool in a cluster the test names (CLUSTER), as civoPool writes one.
const civoManifestPool = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata:
  name: cpool
spec:
  nodePoolName: cpool
  cluster:
    value: CLUSTER
  region: fra1
  size: g4s.kube.medium
  nodeCount: 2
`
