//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// upReport runs `clusterplane up FILE --yes -o json`: its exit code, its one stack's report and
// the whole output.
func (e *env) upReport(file string) (int, stackJSON, result) {
	e.t.Helper()
	return e.report("up", file, "--yes")
}

// report runs command on the one manifest file with -o json and returns its exit code and stack.
func (e *env) report(command, file string, flags ...string) (int, stackJSON, result) {
	e.t.Helper()
	r, code := e.clusterplane(append([]string{command, file, "-o", "json"}, flags...)...)
	var report struct {
		Stacks []stackJSON `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Stacks) != 1 {
		e.t.Fatalf("%s -o json = %d, not a report of one stack: %v\n%s", command, code, err, r)
	}
	return code, report.Stacks[0], r
}

// stackJSON is the part of a stack's report these tests read.
type stackJSON struct {
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason"`
	Error     string `json:"error"`
	Unmanaged []struct {
		Type, Name, Where, ID string
	} `json:"unmanaged"`
}

func (s stackJSON) ids() []string {
	var out []string
	for _, u := range s.Unmanaged {
		out = append(out, u.ID)
	}
	return out
}

// Promise: up-takes-back-what-its-create-left
func TestACreateTheCloudCarriedOutButAnswered500IsTakenBackByTheSameUpAndNeverMadeAgain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault fakecloud.Fault
	}{
		// Every POST of a cluster is carried out, then answered 500. The plugin's client would
		// ask again and make one more each time; clusterplane runs it with its retries off and,
		// finding the one it left carrying the stack's mark, takes it into the stack instead.
		{"a create carried out and answered 500", fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters",
			Status: http.StatusInternalServerError, Commit: true, Times: 50}},
		// The create is answered, and the provider's read of the new cluster right after it
		// answered 503: the provider records nothing.
		{"a create whose read right after it answered 503", fakecloud.Fault{Method: http.MethodGet, Path: "/v2/kubernetes/clusters/",
			Status: http.StatusServiceUnavailable, After: http.MethodPost, Times: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			takenBackByTheSameUp(t, tt.fault)
		})
	}
}

// takenBackByTheSameUp runs up of a DigitalOcean cluster against a cloud with fault, which makes
// the cluster but leaves it unrecorded, and holds that the up takes it back, and the next up
// makes none.
func takenBackByTheSameUp(t *testing.T, fault fakecloud.Fault) {
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	e.do.Inject(fault)
	code, st, r := e.upReport(manifest)
	made := e.do.Clusters()
	if code != 0 || st.Outcome != "done" || len(made) != 1 || len(st.Unmanaged) != 0 {
		t.Fatalf("up against a cloud that answers 500 after each create = %d, %s with %v; the cloud holds %d: want done, the one made taken back\n%s",
			code, st.Outcome, st.ids(), len(made), r)
	}
	if !strings.Contains(st.Reason, "took back cluster dev-fra1") || !strings.Contains(st.Reason, made[0].ID) {
		t.Errorf("the up does not say it took back cluster %s: %s", made[0].ID, st.Reason)
	}
	if !slices.ContainsFunc(made[0].Tags, func(tag string) bool { return strings.HasPrefix(tag, "clusterplane-stack:") }) {
		t.Errorf("the cluster made carries no stack mark: %v", made[0].Tags)
	}
	if s := e.status(manifest); condition(s, "Ready") != "True/Deployed" || condition(s, "Drifted") != "False/InSync" {
		t.Errorf("status after the taken-back create: %+v, want Ready and in sync", s)
	}

	// The fault is still there: the next up creates nothing, and the stack keeps its one cluster.
	if code, st, r = e.upReport(manifest); code != 0 || st.Outcome != "done" {
		t.Errorf("the next up = %d, %s: want done\n%s", code, st.Outcome, r)
	}
	if n := len(e.do.Clusters()); n != 1 {
		t.Errorf("the cloud holds %d clusters after the next up, want still 1", n)
	}
}

func TestAPoolCreateTheCloudCarriedOutButAnswered500IsTakenBackByTheSameUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	cluster := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/production.yaml"), "  deletionProtection: false\n"))
	if code, st, r := e.upReport(cluster); code != 0 {
		t.Fatalf("up of the cluster = %d, %s\n%s", code, st.Outcome, r)
	}
	clusterID := e.doCluster("platform-ams3-prod").ID
	pool := e.write("pool.yaml", example(t, "digitaloceankubernetesnodepool/cluster-by-reference.yaml"))
	e.do.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters/" + clusterID + "/node_pools",
		Status: http.StatusInternalServerError, Commit: true, Times: 50})
	code, st, r := e.upReport(pool)
	if code != 0 || st.Outcome != "done" || !strings.Contains(st.Reason, "took back node pool batch") {
		t.Fatalf("up of the pool against a cloud that answers 500 after each create = %d, %s: want done, the pool taken back\n%s", code, st.Outcome, r)
	}
	e.doPool(clusterID, "batch") // fails the test unless the pool is there
	if batch := named(e.do.Pools(clusterID), func(p godo.KubernetesNodePool) string { return p.Name }, "batch"); batch != 1 {
		t.Errorf("the cluster holds %d pools named batch, want 1", batch)
	}
}

func TestAClusterMadeOutsideClusterplaneIsNeverCreatedAgainButNamedWithTheAdoptCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, example string
		// seed puts a cluster of the manifest's name into the cloud, outside any stack: its id.
		seed  func(e *env) string
		count func(e *env) int
	}{
		{"DigitalOcean", "digitaloceankubernetescluster/minimal.yaml",
			func(e *env) string {
				return e.do.SeedCluster(godo.KubernetesCluster{Name: "dev-fra1", RegionSlug: "fra1",
					NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2}}})
			},
			func(e *env) int { return len(e.do.Clusters()) }},
		{"Civo", "civokubernetescluster/minimal.yaml",
			func(e *env) string {
				e.seedExamples()
				return e.civo.SeedCluster(civogo.KubernetesCluster{Name: "dev-fra1", NetworkID: e.civo.DefaultNetworkID("fra1")})
			},
			func(e *env) int { return len(e.civo.Clusters()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			id := tt.seed(e)
			before := tt.count(e)
			manifest := e.write("cluster.yaml", withSpec(example(t, tt.example), "  deletionProtection: false\n"))
			// preview says what up will refuse: a green preview is no red up (newcomer7).
			for _, command := range []string{"preview", "up"} {
				code, st, r := e.report(command, manifest, map[string][]string{"up": {"--yes"}}[command]...)
				if code != 3 || st.Outcome != "blocked" || len(st.Unmanaged) != 1 || st.Unmanaged[0].ID != id ||
					!strings.Contains(st.Error, "`clusterplane adopt "+manifest+" --id "+id+"`") {
					t.Errorf("%s with a cluster of its name in the cloud = %d, %s %v: want refused naming %s and the adopt command\n%s",
						command, code, st.Outcome, st.ids(), id, r)
				}
			}
			if n := tt.count(e); n != before {
				t.Errorf("the cloud holds %d clusters after the refused up, want %d", n, before)
			}
		})
	}
}

// Through `clusterplane serve`, a cluster whose create the cloud carried out but answered 500 ends
// Ready: the worker's up takes back the one its create left, and the cloud holds one.
// Promise: up-takes-back-what-its-create-left
func TestAClusterCreateAnswered500ThroughTheAPIEndsReadyWithOneCluster(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.serveAPI(pgtest.Start(t).Database("serve"))
	e.do.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters", Status: http.StatusInternalServerError,
		Commit: true, Times: 50})
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "lost-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	if n := named(e.do.Clusters(), func(c godo.KubernetesCluster) string { return c.Name }, "lost-fra1"); n != 1 {
		t.Errorf("the cloud holds %d clusters named lost-fra1, want 1", n)
	}
}

// named counts the items whose name is name.
func named[T any](items []T, nameOf func(T) string, name string) int {
	n := 0
	for _, item := range items {
		if nameOf(item) == name {
			n++
		}
	}
	return n
}

// A cluster carrying a stack's mark that the stack does not record (here its record is lost: the
// stack's checkpoint removed from the backend) is named by drift, exit 3, with the command that
// adopts it; a cluster of another name made in the console, unmarked, is not taken for one.
// Promise: drift-names-unrecorded-marked-clusters
func TestDriftNamesAClusterCarryingTheStacksMarkThatTheStackDoesNotRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if code, st, r := e.upReport(manifest); code != 0 {
		t.Fatalf("up = %d, %s\n%s", code, st.Outcome, r)
	}
	made := e.doCluster("dev-fra1").ID
	byHand := e.do.SeedCluster(godo.KubernetesCluster{Name: "made-by-hand", RegionSlug: "fra1",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	stacks := e.loseRecord("digitaloceankubernetescluster", "dev-fra1")
	code, st, r := e.report("drift", manifest)
	if code != 3 || st.Outcome != "drifted" || !slices.Equal(st.ids(), []string{made}) ||
		!strings.Contains(st.Error+st.Reason, "clusterplane adopt "+manifest+" --id "+made) {
		t.Errorf("drift of the stack whose record is lost = %d, %s naming %v: want drifted (3) naming %s alone and its adopt command\n%s",
			code, st.Outcome, st.ids(), made, r)
	}
	if strings.Contains(st.Reason, byHand) {
		t.Errorf("drift names the unmarked cluster %s as the stack's:\n%s", byHand, r)
	}

	// A preview makes a stack for itself and removes it after: the history the lost stack left,
	// which a person recovers it from, stays as it was.
	// Promise: preview-keeps-a-lost-stacks-history
	history := filepath.Join(e.dir, "state", ".pulumi", "history", "digitaloceankubernetescluster", "dev-fra1")
	before, err := os.ReadDir(history)
	if err != nil || len(before) == 0 {
		t.Fatalf("the lost stack's history: %d files, %v", len(before), err)
	}
	// A copy of the lost stack's checkpoint a person kept beside it stays too.
	keptCopy := filepath.Join(stacks, "dev-fra1.json.bak")
	if err := os.WriteFile(keptCopy, []byte(`{"version": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, code := e.clusterplane("preview", manifest); code != 0 {
		t.Errorf("preview of the lost stack = %d, want 0 (up takes the cluster back)\n%s", code, r)
	}
	if _, err := os.Stat(keptCopy); err != nil {
		t.Errorf("the lost stack's %s is gone after a preview: %v", keptCopy, err)
	}
	if err := os.Remove(keptCopy); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadDir(history); err != nil || len(after) != len(before) {
		t.Errorf("the lost stack's history holds %d files after a preview, had %d (%v)", len(after), len(before), err)
	}
	if _, err := os.Stat(filepath.Join(stacks, "dev-fra1.json")); !os.IsNotExist(err) {
		t.Errorf("the stack the preview made is still there: %v", err)
	}
	// Followed as drift says it, the stack holds the cluster again.
	if r, code := e.clusterplane("adopt", manifest, "--id", made); code != 0 {
		t.Fatalf("adopt as drift says = %d\n%s", code, r)
	}
	if code, st, r := e.report("drift", manifest); code != 0 || st.Outcome != "done" {
		t.Errorf("drift after the adopt = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
}

// loseRecord removes a stack's checkpoint (and its backups) from the file backend, as a lost or
// wrongly deleted record would be, and says the folder of the project's stacks.
func (e *env) loseRecord(project, stack string) string {
	e.t.Helper()
	stacks := filepath.Join(e.dir, "state", ".pulumi", "stacks", project)
	entries, err := os.ReadDir(stacks)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, entry := range entries {
		if strings.HasPrefix(entry.Name(), stack+".json") {
			if err := os.Remove(filepath.Join(stacks, entry.Name())); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	return stacks
}

// A Civo cluster whose stack's record is lost is adopted as drift says, with the firewall its
// module made: the firewall carries the cluster's name, which Civo allows once a region, so an
// adopt that took the cluster alone would create a second one and fail. The adopt changes the
// firewall in nothing, though the manifest's API rule has changed since; the up after it changes
// the rule in place and replaces nothing, and drift then finds nothing.
// Promise: adopt-takes-the-civo-firewall-the-module-made
func TestACivoClusterWhoseRecordIsLostIsAdoptedWithTheFirewallItsModuleMade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	manifest := e.write("cluster.yaml", withSpec(example(t, "civokubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if code, st, r := e.upReport(manifest); code != 0 {
		t.Fatalf("up = %d, %s\n%s", code, st.Outcome, r)
	}
	devFra1 := func() []civogo.KubernetesCluster {
		var out []civogo.KubernetesCluster
		for _, c := range e.civo.Clusters() {
			if c.Name == "dev-fra1" {
				out = append(out, c)
			}
		}
		return out
	}
	clusters := devFra1()
	if len(clusters) != 1 {
		t.Fatalf("Civo holds %d clusters named dev-fra1, want 1", len(clusters))
	}
	made, firewall := clusters[0].ID, clusters[0].FirewallID
	e.loseRecord("civokubernetescluster", "dev-fra1")
	// The manifest has changed since: its firewall's API rule is another, which adopt leaves to
	// the next up.
	e.write("cluster.yaml", withSpec(example(t, "civokubernetescluster/minimal.yaml"),
		"  deletionProtection: false\n  apiServerAllowedCidrs: [203.0.113.0/24]\n"))
	if code, st, r := e.report("drift", manifest); code != 3 || !slices.Equal(st.ids(), []string{made}) {
		t.Fatalf("drift of the stack whose record is lost = %d naming %v, want 3 naming %s\n%s", code, st.ids(), made, r)
	}
	e.civo.Reset()
	if r, code := e.clusterplane("adopt", manifest, "--id", made); code != 0 {
		t.Fatalf("adopt as drift says = %d\n%s", code, r)
	}
	for _, req := range e.civo.Requests("") {
		if strings.Contains(req.Path, "/firewalls") && req.Method != http.MethodGet {
			t.Errorf("adopt changed the firewall: %s %s %s", req.Method, req.Path, req.Body)
		}
	}
	if code, st, r := e.upReport(manifest); code != 0 || strings.Contains(st.Reason, "replace") || strings.Contains(st.Reason, "create") {
		t.Errorf("up after the adopt = %d, %q: want done, nothing created or replaced\n%s", code, st.Reason, r)
	}
	if rule := apiRule(e, firewall); rule != "203.0.113.0/24" {
		t.Errorf("after the up the firewall's API rule allows %q, want the manifest's 203.0.113.0/24", rule)
	}
	if code, st, r := e.report("drift", manifest); code != 0 || st.Outcome != "done" {
		t.Errorf("drift after the adopt and up = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
	named := 0
	for _, fw := range e.civo.Networking().Firewalls() {
		if fw.Name == "dev-fra1" {
			named++
		}
	}
	clusters = devFra1()
	if named != 1 || len(clusters) != 1 || clusters[0].ID != made || clusters[0].FirewallID != firewall {
		t.Errorf("Civo holds %d firewalls named dev-fra1 and clusters %+v, want the one firewall %s and cluster %s behind it", named, clusters, firewall, made)
	}
}

// apiRule is the CIDRs the Civo firewall id's API rule (port 6443) allows, as the cloud holds it.
func apiRule(e *env, id string) string {
	for _, fw := range e.civo.Networking().Firewalls() {
		if fw.ID != id {
			continue
		}
		for _, rule := range fw.Rules {
			if rule.StartPort == "6443" || rule.Ports == "6443" {
				return strings.Join(rule.Cidr, ",")
			}
		}
	}
	return ""
}

// A stack deployed before clusterplane marked what it creates (here: its mark taken out of the
// state and the cloud) drifts not at all for the want of it, and its next up that runs the engine
// adds it in place: the same cluster, updated, never replaced.
// Promise: mark-added-in-place-at-next-up
func TestAStackDeployedBeforeTheMarkGetsItInPlaceAtItsNextUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if code, st, r := e.upReport(manifest); code != 0 {
		t.Fatalf("up = %d, %s\n%s", code, st.Outcome, r)
	}
	id := e.doCluster("dev-fra1").ID
	marked := func(tags []string) bool {
		return slices.ContainsFunc(tags, func(tag string) bool { return strings.HasPrefix(tag, "clusterplane-stack:") })
	}
	unmark := func(tags []string) []string {
		return slices.DeleteFunc(slices.Clone(tags), func(tag string) bool { return strings.HasPrefix(tag, "clusterplane-stack:") })
	}
	e.do.EditCluster(id, func(c *godo.KubernetesCluster) {
		c.Tags = unmark(c.Tags)
		for _, p := range c.NodePools {
			p.Tags = unmark(p.Tags)
		}
	})
	checkpoint := filepath.Join(e.dir, "state", ".pulumi", "stacks", "digitaloceankubernetescluster", "dev-fra1.json")
	data, err := os.ReadFile(checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	var state any
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case []any:
			out := []any{}
			for _, e := range v {
				if s, ok := e.(string); ok && strings.HasPrefix(s, "clusterplane-stack:") {
					continue
				}
				out = append(out, strip(e))
			}
			return out
		case map[string]any:
			for k, e := range v {
				v[k] = strip(e)
			}
		}
		return v
	}
	if data, err = json.Marshal(strip(state)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(checkpoint, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "clusterplane-stack:") {
		t.Fatal("the mark is still in the state")
	}
	if code, st, r := e.report("drift", manifest, "--deep"); code != 0 || st.Outcome != "done" {
		t.Errorf("drift --deep of the stack deployed without its mark = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
	code, st, r := e.report("up", manifest, "--yes", "--deep")
	if code != 0 || st.Outcome != "done" || !strings.Contains(st.Reason, "1 update,") || !strings.Contains(st.Reason, "added the stack's mark (clusterplane-stack:...) to spec.defaultNodePool.tags, spec.tags") || strings.Contains(st.Reason, "replace") || strings.Contains(st.Reason, "put back") {
		t.Fatalf("up --deep of the stack deployed without its mark = %d, %s %q: want done, the cluster updated in place\n%s", code, st.Outcome, st.Reason, r)
	}
	now := e.doCluster("dev-fra1")
	if now.ID != id || !marked(now.Tags) || !marked(now.NodePools[0].Tags) {
		t.Errorf("after the up the cluster %s (was %s) has tags %v and its pool %v: want the same cluster, both marked", now.ID, id, now.Tags, now.NodePools[0].Tags)
	}
	if code, st, r := e.report("drift", manifest, "--deep"); code != 0 || st.Outcome != "done" {
		t.Errorf("drift --deep after the up = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
}

// Civo's cluster create, carried out and answered 500: the same up takes back the one it made
// (the firewall its module makes first is the stack's already), and the cloud holds one.
// Promise: up-takes-back-what-its-create-left
func TestACivoClusterCreateAnswered500IsTakenBackByTheSameUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	manifest := e.write("cluster.yaml", withSpec(example(t, "civokubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	e.civo.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters", Status: http.StatusInternalServerError,
		Commit: true, Times: 50})
	code, st, r := e.upReport(manifest)
	if code != 0 || st.Outcome != "done" || !strings.Contains(st.Reason, "took back cluster dev-fra1") {
		t.Fatalf("up of a Civo cluster against a cloud that answers 500 after each create = %d, %s: want done, the cluster taken back\n%s",
			code, st.Outcome, r)
	}
	if n := named(e.civo.Clusters(), func(c civogo.KubernetesCluster) string { return c.Name }, "dev-fra1"); n != 1 {
		t.Errorf("Civo holds %d clusters named dev-fra1, want 1", n)
	}
	if code, st, r := e.report("drift", manifest, "--deep"); code != 0 || st.Outcome != "done" {
		t.Errorf("drift --deep after the taken-back create = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
}

// A Civo pool's create, carried out and answered 500: the pool carries its stack's mark as a node
// label (Civo pools keep no tags), and the same up takes it back; the cloud holds one pool more.
// Promise: up-takes-back-what-its-create-left
func TestACivoPoolCreateAnswered500IsTakenBackByTheSameUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	cluster := e.write("cluster.yaml", withSpec(example(t, "civokubernetescluster/production.yaml"), "  deletionProtection: false\n"))
	if code, st, r := e.upReport(cluster); code != 0 {
		t.Fatalf("up of the cluster = %d, %s\n%s", code, st.Outcome, r)
	}
	made, ok := e.civo.ClusterNamed("platform-fra1-prod")
	if !ok {
		t.Fatal("Civo holds no cluster platform-fra1-prod after its up")
	}
	before := e.civo.Pools()
	pool := e.write("pool.yaml", example(t, "civokubernetesnodepool/cluster-by-reference.yaml"))
	e.civo.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters/" + made.ID + "/pools",
		Status: http.StatusInternalServerError, Commit: true, Times: 50})
	code, st, r := e.upReport(pool)
	if code != 0 || st.Outcome != "done" || !strings.Contains(st.Reason, "took back node pool batch") {
		t.Fatalf("up of the Civo pool against a cloud that answers 500 after each create = %d, %s: want done, the pool taken back\n%s",
			code, st.Outcome, r)
	}
	if n := e.civo.Pools(); n != before+1 {
		t.Errorf("Civo holds %d pools after the up, want %d: one made, once", n, before+1)
	}
	if p, ok := e.civo.Pool(made.ID, "batch"); !ok || !strings.Contains(p.Labels["clusterplane.dev/stack"], "-") || p.Labels["workload"] != "batch" {
		t.Errorf("the pool batch: %+v (found %v), want it labelled with the manifest's labels and its stack's mark", p, ok)
	}
	if code, st, r := e.report("drift", pool, "--deep"); code != 0 || st.Outcome != "done" {
		t.Errorf("drift --deep after the taken-back create = %d, %s: want no drift\n%s", code, st.Outcome, r)
	}
}
