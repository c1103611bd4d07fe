//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/digitalocean/godo"
)

// clusterReads are the paths of the single-cluster reads DigitalOcean answered since the last
// Reset: the provider's refresh reads each cluster so, the fleet scan lists them instead.
func (e *env) clusterReads() []string {
	var out []string
	for _, r := range e.do.Requests(http.MethodGet) {
		if strings.HasPrefix(r.Path, "/v2/kubernetes/clusters/") && strings.Count(r.Path, "/") == 4 {
			out = append(out, strings.TrimPrefix(r.Path, "/v2/kubernetes/clusters/"))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// clusterLists are the requests for a page of the account's clusters DigitalOcean answered since
// the last Reset.
func (e *env) clusterLists() int {
	n := 0
	for _, r := range e.do.Requests(http.MethodGet) {
		if r.Path == "/v2/kubernetes/clusters" {
			n++
		}
	}
	return n
}

// The fleet scan lists DigitalOcean's clusters once and compares them with the stacks' records:
// on the real provider, drift made in the cloud on three of four stacks (a pool resized, a tag
// added, a cluster deleted) is found by the scan, and the provider's refresh, run for those three
// only, confirms each as `drift --deep`, which refreshes every stack, says it. preview and up then
// leave the stack nobody touched alone, and once up has put the others back, all of them.
// Promise: e2e-fleet-scan-finds-what-the-refresh-finds
func TestTheFleetScanFindsWhatTheProviderFindsAndRunsOnlyThoseStacks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := deployAFleetOfFour(t, e)

	checkAnUntouchedFleetIsJudgedByTheScanAlone(t, e, dir)

	f1, f2, f3 := driftThreeOfTheFourInTheCloud(t, e)

	e.do.Reset()
	scanned, code := e.clusterplane("drift", dir, "-o", "json")
	if code != 3 || !strings.Contains(scanned.stderr, "1 stack as recorded, 2 differing, 1 missing from the cloud") {
		t.Errorf("drift after three drifts = %d, want 3 with the scan's counts: %s", code, scanned)
	}
	want := []string{f1.ID, f2.ID, f3.ID}
	slices.Sort(want)
	if reads := e.clusterReads(); !slices.Equal(reads, want) {
		t.Errorf("the provider read clusters %v, want the three drifted alone %v", reads, want)
	}
	// The scan's list is the run's: the stacks' look-ups by name, clusterplane's and their
	// programs', take it from there (package runlist).
	// Promise: e2e-a-run-lists-the-account-once
	if n := e.clusterLists(); n != 1 {
		t.Errorf("drift of three changed stacks listed the account's clusters %d times, want once", n)
	}
	deep, code := e.clusterplane("drift", dir, "-o", "json", "--deep")
	if code != 3 || strings.Contains(deep.stderr, "fleet scan") {
		t.Errorf("drift --deep = %d, want 3 and no scan: %s", code, deep)
	}
	if a, b := driftVerdicts(t, scanned.stdout), driftVerdicts(t, deep.stdout); !slices.Equal(a, b) || len(a) != 4 {
		t.Errorf("the scan's drift says %v, the provider's for every stack %v: want the same four", a, b)
	}
	e.do.Reset()
	r, code := e.clusterplane("status", dir, "--drift", "-o", "json")
	want = []string{"f1 True/ChangesPending", "f2 True/ChangesPending", "f3 True/ChangesPending", "f4 False/InSync"}
	if got := driftedConditions(t, r.stdout); code != 4 || !slices.Equal(got, want) {
		t.Errorf("status --drift after three drifts = %d, Drifted %v, want 4 and %v, as drift says: %s", code, got, want, r)
	}
	if reads, three := e.clusterReads(), []string{f1.ID, f2.ID, f3.ID}; !slices.Equal(reads, slices.Sorted(slices.Values(three))) {
		t.Errorf("status --drift had the provider read clusters %v, want the three drifted alone", reads)
	}
	if n := e.clusterLists(); n != 1 {
		t.Errorf("status --drift of three changed stacks listed the account's clusters %d times, want once", n)
	}

	e.do.Reset()
	r, code = e.clusterplane("preview", dir)
	// f4 is counted, not listed; the three others are listed.
	if code != 0 || !strings.Contains(r.stdout, "Stacks: 3 would change, 1 unchanged (1 not run).") || strings.Count(r.stdout, "would change: ") != 3 ||
		!strings.Contains(r.stderr, "1 unchanged since their last up, not run") {
		t.Errorf("preview = %d, want f4 alone left unrun: %s", code, r)
	}
	if n := e.clusterLists(); n != 1 {
		t.Errorf("preview of three changed stacks listed the account's clusters %d times, want once", n)
	}
	e.do.Reset()
	if r, code := e.clusterplane("up", dir, "--yes", "-q"); code != 0 {
		t.Fatalf("up putting the three back = %d: %s", code, r)
	}
	// f3, deleted in the cloud, is made again, after which no stack of the run looks a name up.
	if n := e.clusterLists(); n != 1 {
		t.Errorf("up of three changed stacks listed the account's clusters %d times, want once", n)
	}
	if got := e.doCluster("f1").NodePools[0].Count; got != 2 {
		t.Errorf("after up f1's pool has %d nodes, want the manifest's 2", got)
	}
	e.do.Reset()
	r, code = e.clusterplane("up", dir, "--yes")
	// No stack listed: the summary alone, with the fleet's monthly cost unchanged.
	if code != 0 || !strings.HasPrefix(r.stdout, "Stacks: 4 unchanged (4 not run).") || strings.Count(r.stdout, "\n") != 1 ||
		!strings.Contains(r.stdout, "/month (unchanged)") || len(e.clusterReads()) != 0 {
		t.Errorf("up of a fleet up to date = %d, want 0 with every stack left unrun and no cluster read: %s", code, r)
	}
}

// deployAFleetOfFour deploys four copies of the minimal DigitalOcean cluster, f1 to f4, from one
// folder, and says the folder.
func deployAFleetOfFour(t *testing.T, e *env) string {
	t.Helper()
	dir := filepath.Join(e.dir, "fleet")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	text := example(t, "digitaloceankubernetescluster/minimal.yaml")
	names := []string{"f1", "f2", "f3", "f4"}
	for _, n := range names {
		e.write(filepath.Join("fleet", n+".yaml"), strings.ReplaceAll(text, "dev-fra1", n))
	}
	if r, code := e.clusterplane("up", dir, "--yes", "-q"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	return dir
}

// checkAnUntouchedFleetIsJudgedByTheScanAlone checks that drift and status --drift of a fleet
// nobody touched list the clusters once and read none one by one: no engine runs.
func checkAnUntouchedFleetIsJudgedByTheScanAlone(t *testing.T, e *env, dir string) {
	t.Helper()
	e.do.Reset()
	r, code := e.clusterplane("drift", dir)
	if code != 0 || !strings.Contains(r.stderr, "fleet scan: 1 cloud request; 4 stacks as recorded") ||
		!strings.Contains(r.stdout, "Stacks: 4 unchanged (4 not run).") {
		t.Errorf("drift of an untouched fleet = %d, want 0 from one list, 4 stacks as recorded: %s", code, r)
	}
	if reads := e.clusterReads(); len(reads) != 0 {
		t.Errorf("drift of an untouched fleet read clusters %v one by one, want none (the scan's list only)", reads)
	}
	// status --drift goes through the same scan: a script gating on its exit code pays no engine.
	e.do.Reset()
	r, code = e.clusterplane("status", dir, "--drift", "-o", "json")
	if got := driftedConditions(t, r.stdout); code != 0 || !strings.Contains(r.stderr, "fleet scan: 1 cloud request; 4 stacks as recorded") ||
		!slices.Equal(got, []string{"f1 False/InSync", "f2 False/InSync", "f3 False/InSync", "f4 False/InSync"}) {
		t.Errorf("status --drift of an untouched fleet = %d, Drifted %v, want 0 from one list, all four in sync: %s", code, got, r)
	}
	if reads := e.clusterReads(); len(reads) != 0 {
		t.Errorf("status --drift of an untouched fleet read clusters %v one by one, want none (the scan's list only)", reads)
	}
}

// driftThreeOfTheFourInTheCloud makes drift behind the stacks' backs: f1's pool resized, a tag
// added to f2, f3 deleted; f4 is left alone.
func driftThreeOfTheFourInTheCloud(t *testing.T, e *env) (f1, f2, f3 godo.KubernetesCluster) {
	t.Helper()
	f1, f2, f3 = e.doCluster("f1"), e.doCluster("f2"), e.doCluster("f3")
	e.do.EditPool(f1.ID, f1.NodePools[0].ID, func(p *godo.KubernetesNodePool) { p.Count = 5 })
	e.do.EditCluster(f2.ID, func(c *godo.KubernetesCluster) { c.Tags = append(c.Tags, "sneaky") })
	req, _ := http.NewRequest(http.MethodDelete, e.do.URL()+"/v2/kubernetes/clusters/"+f3.ID, nil)
	req.Header.Set("Authorization", "Bearer "+doToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("delete f3 in the cloud: %v %v", resp, err)
	}
	return f1, f2, f3
}

// driftedConditions are status's JSON report's stacks, "<name> <Drifted status>/<reason>" each, sorted.
func driftedConditions(t *testing.T, stdout string) []string {
	t.Helper()
	var rep struct {
		Stacks []struct {
			Status statusJSON `json:"status"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("read status's report: %v\n%s", err, stdout)
	}
	var out []string
	for _, s := range rep.Stacks {
		_, name, _ := strings.Cut(s.Status.Stack, "/")
		out = append(out, name+" "+condition(s.Status, "Drifted"))
	}
	slices.Sort(out)
	return out
}

// driftVerdicts are drift's JSON report's stacks, "<stack> <status> <fields>" each, sorted.
func driftVerdicts(t *testing.T, stdout string) []string {
	t.Helper()
	var rep adoptReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("read drift's report: %v\n%s", err, stdout)
	}
	var out []string
	for _, s := range rep.Stacks {
		var fields []string
		for _, f := range s.Drift {
			fields = append(fields, f.Field)
		}
		out = append(out, fmt.Sprintf("%s %s %v", s.Stack, s.Outcome, fields))
	}
	slices.Sort(out)
	return out
}

// A Civo cluster's stack holds its firewall as well: the scan lists the region's clusters and
// firewalls (two requests) and vouches for both, and a rule added to the firewall in the cloud is
// found by the scan and named by the provider's refresh, as --deep names it.
func TestTheFleetScanJudgesACivoClusterWithItsFirewall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	file := e.write("civo.yaml", example(t, "civokubernetescluster/minimal.yaml"))
	if r, code := e.clusterplane("up", file, "--yes", "-q"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	r, code := e.clusterplane("drift", file)
	if code != 0 || !strings.Contains(r.stderr, "fleet scan: 2 cloud requests; 1 stack as recorded\n") || !strings.Contains(r.stdout, "no drift") {
		t.Errorf("drift of an untouched Civo cluster = %d, want 0 from the scan's two lists: %s", code, r)
	}
	var firewall string
	for _, fw := range e.civoFirewalls(t) {
		firewall = fw
	}
	body := `{"region":"FRA1","protocol":"tcp","start_port":"22","end_port":"22","cidr":["0.0.0.0/0"],"direction":"ingress","action":"allow","label":"ssh"}`
	req, _ := http.NewRequest(http.MethodPost, e.civo.URL()+"/v2/firewalls/"+firewall+"/rules", strings.NewReader(body))
	req.Header.Set("Authorization", "bearer "+civoToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("add a rule to firewall %s in the cloud: %v %v", firewall, resp, err)
	}
	for _, args := range [][]string{{"drift", file}, {"drift", file, "--deep"}} {
		r, code := e.clusterplane(args...)
		if code != 3 || !strings.Contains(r.stdout, "spec.apiServerAllowedCidrs") || strings.Contains(r.stderr, "1 stack as recorded") {
			t.Errorf("%v after a rule was added in the cloud = %d, want 3 naming spec.apiServerAllowedCidrs: %s", args, code, r)
		}
	}
}

// civoFirewalls are the ids of the firewalls the loopback Civo holds in fra1.
func (e *env) civoFirewalls(t *testing.T) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.civo.URL()+"/v2/firewalls?region=FRA1", nil)
	req.Header.Set("Authorization", "bearer "+civoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fw := range list {
		out = append(out, fw.ID)
	}
	return out
}

// A file backend that compresses with zstd (PULUMI_DIY_BACKEND_ZSTD, which the pinned CLI writes
// as <stack>.json.zst and <stack>-<time>.history.json.zst) is read as the CLI reads it: status
// says the stack is deployed, as it does through the CLI, and drift judges it from the cloud's
// list without the engine.
func TestAZstdBackendsStackIsReadAsDeployed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.vars = append(e.vars, "PULUMI_DIY_BACKEND_ZSTD=true")
	file := filepath.Join(e.dir, "zstd.yaml")
	e.write("zstd.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	if r, code := e.clusterplane("up", file, "--yes", "-q"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	stacks := filepath.Join(e.dir, "state", ".pulumi", "stacks", "digitaloceankubernetescluster")
	if _, err := os.Stat(filepath.Join(stacks, "dev-fra1.json.zst")); err != nil {
		t.Fatalf("the CLI kept no zstd state: %v", err)
	}
	if _, err := os.Stat(filepath.Join(stacks, "dev-fra1.json")); err == nil {
		t.Fatalf("the CLI kept a plain state beside the zstd one: the test reads no zstd form")
	}

	r, code := e.clusterplane("status", file, "-o", "json")
	var report struct {
		Stacks []struct {
			Status statusJSON `json:"status"`
		} `json:"stacks"`
	}
	if code != 0 || json.Unmarshal([]byte(r.stdout), &report) != nil || len(report.Stacks) != 1 ||
		condition(report.Stacks[0].Status, "Ready") != "True/Deployed" {
		t.Errorf("status of a stack kept in zstd = %d, want 0 and Ready True/Deployed: %s", code, r)
	}
	e.statusFromRecordsAgrees(file)

	e.do.Reset()
	r, code = e.clusterplane("drift", file)
	if code != 0 || !strings.Contains(r.stderr, "fleet scan: 1 cloud request; 1 stack as recorded") {
		t.Errorf("drift of a stack kept in zstd = %d, want 0, judged by the scan: %s", code, r)
	}
	if reads := e.clusterReads(); len(reads) != 0 {
		t.Errorf("drift read clusters %v one by one, want none (the scan's list only)", reads)
	}
}
